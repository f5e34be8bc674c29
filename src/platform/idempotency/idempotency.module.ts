import { Module } from '@nestjs/common';
import { CryptoModule } from '../crypto/crypto.module.js';
import { IdempotencyCleanupJob } from './idempotency-cleanup.job.js';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';
import { IdempotencyStore } from './idempotency.store.js';

/**
 * Idempotency-Key handling for `@Idempotent()` routes and the cleanup job of its table. The
 * interceptor is exported because `@UseInterceptors` resolves it in each feature module.
 */
@Module({
  imports: [CryptoModule],
  providers: [IdempotencyStore, IdempotencyInterceptor, IdempotencyCleanupJob],
  exports: [IdempotencyStore, IdempotencyInterceptor],
})
export class IdempotencyModule {}
