import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhooksModule } from '../webhooks.module.js';
import { WebhookDeliveriesController } from './webhook-deliveries.controller.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';
import { WebhookTestEventsController } from './webhook-test-events.controller.js';
import { WebhookDelivery, WebhookDeliveryAttempt } from './webhook-delivery.entity.js';

/** The API side of deliveries: reading them, replays, retries and test events (the worker sends them: WebhookDeliveryWorkerModule). */
@Module({
  imports: [WebhooksModule, TypeOrmModule.forFeature([WebhookDelivery, WebhookDeliveryAttempt])],
  controllers: [WebhookDeliveriesController, WebhookTestEventsController],
  providers: [WebhookDeliveriesService],
})
export class WebhookDeliveryModule {}
