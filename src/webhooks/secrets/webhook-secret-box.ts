import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { SecretsCipher } from '../../platform/crypto/secrets-cipher.js';
import type { WebhookEndpoint } from '../webhook-endpoint.entity.js';

/** Standard Webhooks allows 24 to 64 bytes; 32 bytes is HMAC-SHA256's full strength. */
const SECRET_BYTES = 32;
const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Opened signing secrets kept per process: the endpoints of a busy worker, a few hundred bytes each. */
const OPENED_SECRETS = 10_000;

/**
 * Webhook signing secrets: generated in the Standard Webhooks format, so stock verifiers accept
 * them, and stored only encrypted (AES-256-GCM under SECRETS_KEY, see SecretsCipher).
 */
@Injectable()
export class WebhookSecretBox {
  /**
   * Signing secrets already opened, by ciphertext: an endpoint's deliveries need its secret each
   * time, and opening it (an AES-GCM decipher) was about 4 % of the worker's work in a burst.
   * Keyed by the ciphertext itself, so a rotated secret (a new ciphertext) can never be answered
   * with the old one; the oldest entry goes first once OPENED_SECRETS are held.
   */
  private readonly opened = new Map<string, string>();

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
    const secrets = [this.openSigningSecret(endpoint.secretCiphertext)];
    const { previousSecretCiphertext: previous, previousSecretExpiresAt: expiresAt } = endpoint;
    if (previous && expiresAt && expiresAt.getTime() > now.getTime()) secrets.push(this.openSigningSecret(previous));
    return secrets;
  }

  private openSigningSecret(ciphertext: Buffer): string {
    const key = ciphertext.toString('base64');
    let secret = this.opened.get(key);
    if (secret === undefined) {
      secret = this.open(ciphertext);
      if (this.opened.size >= OPENED_SECRETS) this.opened.delete(this.opened.keys().next().value!);
      this.opened.set(key, secret);
    }
    return secret;
  }
}
