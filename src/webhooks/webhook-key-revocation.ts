import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ApiKeyHooks } from '../platform/auth/api-key-hooks.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';

/** Revoking a key pauses its active endpoints (`api_key_revoked`) in the revocation's own transaction. */
@Injectable()
export class WebhookKeyRevocation implements OnModuleInit {
  constructor(
    @Inject(ApiKeyHooks) private readonly hooks: ApiKeyHooks,
    @Inject(WebhookEndpointsService) private readonly endpoints: WebhookEndpointsService,
  ) {}

  onModuleInit(): void {
    this.hooks.onRevoked((key, scope) => this.endpoints.pauseForRevokedKey(key, scope));
  }
}
