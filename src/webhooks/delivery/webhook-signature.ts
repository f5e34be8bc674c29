import { createHmac } from 'node:crypto';

/** The signature headers of one delivery request. */
export interface WebhookSignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  'x-oh-signature': string;
}

/**
 * Signs a delivery body with every secret given (the current one first; during a rotation's
 * grace also the previous one), in two layouts over the same key bytes (the base64 part of
 * `whsec_…`):
 *
 * - Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`,
 *   one per secret, space-separated, so stock verifiers (`standardwebhooks`) accept it.
 * - `X-OH-Signature: t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>.<body>">[,v1=<hex>]`,
 *   Stripe's layout: the timestamp is signed too, so a captured request cannot be replayed later.
 *
 * `timestamp` is in seconds since the epoch; `id` is the envelope id.
 */
export function signWebhook(secrets: readonly string[], id: string, timestamp: number, body: string): WebhookSignatureHeaders {
  const keys = secrets.map(secretKey);
  const standard = keys.map((key) => `v1,${hmac(key, `${id}.${timestamp}.${body}`).toString('base64')}`);
  const oh = keys.map((key) => `v1=${hmac(key, `${timestamp}.${body}`).toString('hex')}`);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standard.join(' '),
    'x-oh-signature': [`t=${timestamp}`, ...oh].join(','),
  };
}

/** The HMAC key of a `whsec_<base64>` secret: the decoded bytes, as Standard Webhooks defines. */
function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

function hmac(key: Buffer, content: string): Buffer {
  return createHmac('sha256', key).update(content, 'utf8').digest();
}
