import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { SecretsCipher } from '../../platform/crypto/secrets-cipher.js';
import type { WebhookEndpoint } from '../webhook-endpoint.entity.js';

/** Standard Webhooks allows 24 to 64 bytes; 32 bytes is HMAC-SHA256's full strength. */
const SECRET_BYTES = 32;
const WEBHOOK_SECRET_PREFIX = 'whsec_';

/**
 * Webhook signing secrets: generated in the Standard Webhooks format, so stock verifiers accept
 * them, and stored only encrypted (AES-256-GCM under SECRETS_KEY, see SecretsCipher).
 */
@Injectable()
export class WebhookSecretBox {
  constructor(@Inject(SecretsCipher) private readonly cipher: SecretsCipher) {}

  generateSecret(): string {
    return `${WEBHOOK_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
  }

  seal(secret: string): Buffer {
    return this.cipher.seal(secret);
  }

  open(ciphertext: Buffer): string {
    return this.cipher.open(ciphertext);
  }

  /** The secrets to sign with: the current one first, then the previous one during its grace period. */
  signingSecrets(
    endpoint: Pick<WebhookEndpoint, 'secretCiphertext' | 'previousSecretCiphertext' | 'previousSecretExpiresAt'>,
    now: Date,
  ): string[] {
    const secrets = [this.open(endpoint.secretCiphertext)];
    const { previousSecretCiphertext: previous, previousSecretExpiresAt: expiresAt } = endpoint;
    if (previous && expiresAt && expiresAt.getTime() > now.getTime()) secrets.push(this.open(previous));
    return secrets;
  }
}
