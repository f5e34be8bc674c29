import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../platform/config/app-config.js';
import { OnJob } from '../../platform/queue/on-job.decorator.js';
import { JobName } from '../../platform/queue/queue.types.js';
import { DeliveryStore } from './delivery-store.js';
import { WebhookClock } from './webhook-clock.js';

/** Events deleted per statement: each is its own short transaction, so no lock is held for long. */
const RETENTION_BATCH = 1000;
const DAY_MS = 24 * 3600 * 1000;

/**
 * Keeps the events feed to EVENTS_RETENTION_DAYS (30 by default, as Stripe's): deletes older
 * events with their delivery history, batch after batch, and the endpoints' status and
 * subscription history from before then that no event left needs. Scheduled every 10 minutes; any worker
 * may run it, and two at once take different rows.
 */
@Injectable()
export class EventsRetentionJob {
  private readonly logger = new Logger(EventsRetentionJob.name);

  constructor(
    @Inject(DeliveryStore) private readonly store: DeliveryStore,
    @Inject(WebhookClock) private readonly clock: WebhookClock,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  @OnJob(JobName.EventsRetention)
  async run(): Promise<{ deleted: number }> {
    const before = new Date(this.clock.now().getTime() - this.config.EVENTS_RETENTION_DAYS * DAY_MS);
    let deleted = 0;
    for (;;) {
      const batch = await this.store.expireEvents(before, RETENTION_BATCH);
      deleted += batch;
      if (batch < RETENTION_BATCH) break;
    }
    if (deleted > 0) this.logger.log({ deleted, before: before.toISOString() }, 'deleted events past their retention');
    let expired: number;
    do expired = await this.store.expireStatusChanges(before, RETENTION_BATCH);
    while (expired === RETENTION_BATCH);
    do expired = await this.store.expireSubscriptionChanges(before, RETENTION_BATCH);
    while (expired === RETENTION_BATCH);
    return { deleted };
  }
}
