import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookEndpoint } from './webhook-endpoint.entity.js';
import { WebhookEndpointsController } from './webhook-endpoints.controller.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';
import { WebhookKeyRevocation } from './webhook-key-revocation.js';
import { WebhookSafetyModule } from './webhook-safety.module.js';

/**
 * Webhook endpoints: registration, subscriptions, signing secrets and URL safety (spec sections
 * 3, 4, 5.8, 6). Exports what the deliveries API uses: the ownership lookup, and the URL
 * checker and secret box (WebhookSafetyModule).
 */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEndpoint]), WebhookSafetyModule],
  controllers: [WebhookEndpointsController],
  providers: [WebhookEndpointsService, WebhookKeyRevocation],
  exports: [WebhookEndpointsService, WebhookSafetyModule],
})
export class WebhooksModule {}
