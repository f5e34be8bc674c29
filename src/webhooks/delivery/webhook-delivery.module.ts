import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhooksModule } from '../webhooks.module.js';
import { WebhookDeliveriesController } from './webhook-deliveries.controller.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';
import { WebhookDelivery, WebhookDeliveryAttempt } from './webhook-delivery.entity.js';

/** The API side of deliveries: reading them and replays (the worker sends them: WebhookDeliveryWorkerModule). */
@Module({
  imports: [WebhooksModule, TypeOrmModule.forFeature([WebhookDelivery, WebhookDeliveryAttempt])],
  controllers: [WebhookDeliveriesController],
  providers: [WebhookDeliveriesService],
})
export class WebhookDeliveryModule {}
