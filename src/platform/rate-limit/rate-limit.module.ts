import { Module } from '@nestjs/common';
import { RateLimiterService } from './rate-limiter.service.js';

/** Request limits of the REST API role (the guard is registered globally by `ApiModule`). */
@Module({
  providers: [RateLimiterService],
  exports: [RateLimiterService],
})
export class RateLimitModule {}
