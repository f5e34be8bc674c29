import { Module } from '@nestjs/common';
import { WebhookSafetyModule } from '../webhook-safety.module.js';
import { AsynchronousCommit } from './asynchronous-commit.js';
import { AutoDisable } from './auto-disable.service.js';
import { DeliveryAttemptHandler } from './delivery-attempt.handler.js';
import { EventRelay } from './event-relay.service.js';
import { WebhookClock } from './webhook-clock.js';
import { WebhookSender } from './webhook-sender.js';

/**
 * The worker side of deliveries: the outbox relay and the attempt handler (plain SQL, no
 * repositories), with the URL checker and secret box. What the worker role loads instead of the
 * HTTP app.
 */
@Module({
  imports: [WebhookSafetyModule],
  providers: [AsynchronousCommit, EventRelay, DeliveryAttemptHandler, WebhookSender, AutoDisable, WebhookClock],
})
export class WebhookDeliveryWorkerModule {}
