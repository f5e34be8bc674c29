import { Module } from '@nestjs/common';
import { AuthFailureLimiter } from './auth-failure-limiter.service.js';
import { RateLimiterService } from './rate-limiter.service.js';

/** Request limits of the REST API role, applied by the global auth guard (`ApiModule`). */
@Module({
  providers: [RateLimiterService, AuthFailureLimiter],
  exports: [RateLimiterService, AuthFailureLimiter],
})
export class RateLimitModule {}
