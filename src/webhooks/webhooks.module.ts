import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookSecretBox } from './secrets/webhook-secret-box.js';
import { SystemDnsResolver, WEBHOOK_DNS_RESOLVER } from './url-safety/webhook-dns-resolver.js';
import { WebhookUrlChecker } from './url-safety/webhook-url-checker.js';
import { WebhookEndpoint } from './webhook-endpoint.entity.js';
import { WebhookEndpointsController } from './webhook-endpoints.controller.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';
import { WebhookKeyRevocation } from './webhook-key-revocation.js';

/**
 * Webhook endpoints: registration, subscriptions, signing secrets and URL safety (spec sections
 * 3, 4, 5.8, 6). Exports what the delivery side uses: the URL checker (again before every
 * attempt), the secret box and the ownership lookup.
 */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEndpoint])],
  controllers: [WebhookEndpointsController],
  providers: [WebhookEndpointsService, WebhookKeyRevocation, WebhookUrlChecker, WebhookSecretBox, { provide: WEBHOOK_DNS_RESOLVER, useClass: SystemDnsResolver }],
  exports: [WebhookEndpointsService, WebhookUrlChecker, WebhookSecretBox, WEBHOOK_DNS_RESOLVER],
})
export class WebhooksModule {}
