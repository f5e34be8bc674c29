import { Module } from '@nestjs/common';
import { WebhookSealedSecrets } from './secrets/webhook-sealed-secrets.js';
import { WebhookSecretBox } from './secrets/webhook-secret-box.js';
import { SystemDnsResolver, WEBHOOK_DNS_RESOLVER } from './url-safety/webhook-dns-resolver.js';
import { WebhookUrlChecker } from './url-safety/webhook-url-checker.js';

/**
 * What both sides of webhooks need and nothing more: the URL checker (at registration and again
 * before every attempt), its name resolver, the secret box and its secrets' part in SealedSecrets
 * (the check at start, `secrets:reseal`). The worker imports only this, so it builds none of the
 * endpoints' controllers or services.
 */
@Module({
  providers: [WebhookUrlChecker, WebhookSecretBox, WebhookSealedSecrets, { provide: WEBHOOK_DNS_RESOLVER, useFactory: () => new SystemDnsResolver() }],
  exports: [WebhookUrlChecker, WebhookSecretBox, WEBHOOK_DNS_RESOLVER],
})
export class WebhookSafetyModule {}
