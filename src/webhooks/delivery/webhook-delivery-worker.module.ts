import { Module } from '@nestjs/common';
import { WebhookSafetyModule } from '../webhook-safety.module.js';
import { AutoDisable } from './auto-disable.service.js';
import { DeliveryAttemptHandler } from './delivery-attempt.handler.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import { DeliveryMetrics } from './delivery-metrics.js';
import { DeliveryStore } from './delivery-store.js';
import { DeliveryGateModule } from './gate/delivery-gate.module.js';
import { EventRelay } from './event-relay.service.js';
import { EventsRetentionJob } from './events-retention.job.js';
import { WebhookClock } from './webhook-clock.js';
import { WebhookSender } from './webhook-sender.js';

/**
 * The worker side of deliveries: the outbox relay, the dispatcher taking slots from the delivery
 * gate, the attempt handler and the events' retention, all on the delivery store's SQL, with the URL checker and secret
 * box. What the worker role loads instead of the HTTP app.
 */
@Module({
  imports: [WebhookSafetyModule, DeliveryGateModule],
  providers: [DeliveryStore, EventRelay, DeliveryDispatcher, DeliveryAttemptHandler, DeliveryMetrics, WebhookSender, AutoDisable, WebhookClock, EventsRetentionJob],
})
export class WebhookDeliveryWorkerModule {}
