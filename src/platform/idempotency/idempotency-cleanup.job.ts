import { Inject, Injectable, Logger } from '@nestjs/common';
import { OnJob } from '../queue/on-job.decorator.js';
import { JobName } from '../queue/queue.types.js';
import { IdempotencyStore } from './idempotency.store.js';

/** Deletes idempotency records past their 24-hour retention; scheduled every 10 minutes by the worker. */
@Injectable()
export class IdempotencyCleanupJob {
  private readonly logger = new Logger(IdempotencyCleanupJob.name);

  constructor(@Inject(IdempotencyStore) private readonly store: IdempotencyStore) {}

  @OnJob(JobName.IdempotencyCleanup)
  async run(): Promise<{ deleted: number }> {
    const deleted = await this.store.deleteExpired();
    if (deleted > 0) this.logger.log(`deleted ${deleted} expired idempotency records`);
    return { deleted };
  }
}
