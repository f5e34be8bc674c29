import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DeliveryGateModule } from './delivery/gate/delivery-gate.module.js';
import { WebhookEndpoint } from './webhook-endpoint.entity.js';
import { WebhookEndpointsController } from './webhook-endpoints.controller.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';
import { WebhookKeyRevocation } from './webhook-key-revocation.js';
import { WebhookSafetyModule } from './webhook-safety.module.js';

/**
 * Webhook endpoints: registration, subscriptions, signing secrets and URL safety (spec sections
 * 3, 4, 5.8, 6). Exports what the deliveries API uses: the ownership lookup, the URL checker
 * and secret box (WebhookSafetyModule), and the delivery gate (replays).
 */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEndpoint]), WebhookSafetyModule, DeliveryGateModule],
  controllers: [WebhookEndpointsController],
  providers: [WebhookEndpointsService, WebhookKeyRevocation],
  exports: [WebhookEndpointsService, WebhookSafetyModule, DeliveryGateModule],
})
export class WebhooksModule {}
