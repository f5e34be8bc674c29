import { jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../../platform/config/app-config.js';
import { decodeSecretsKey, openWith, SecretsCipher, sealWith } from '../../platform/crypto/secrets-cipher.js';
import { WebhookSecretBox } from './webhook-secret-box.js';

const KEY = randomBytes(32);

async function box(secretsKey = KEY.toString('base64')): Promise<WebhookSecretBox> {
  // A database that holds no development key: all this cipher asks it.
  const noDatabase = { query: async () => [] } as unknown as DataSource;
  const cipher = new SecretsCipher(loadConfig({ SECRETS_KEY: secretsKey }), noDatabase);
  await cipher.onModuleInit();
  return new WebhookSecretBox(cipher);
}

describe('WebhookSecretBox', () => {
  it('generates Standard Webhooks secrets: whsec_ + base64 of 32 random bytes', async () => {
    const b = await box();
    const generated = Array.from({ length: 20 }, () => b.generateSecret());
    for (const secret of generated) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    }
    expect(new Set(generated).size).toBe(20);
  });

  it('seals with AES-256-GCM as IV || tag || ciphertext and opens it again', async () => {
    const b = await box();
    const secret = b.generateSecret();
    const sealed = b.seal(secret);
    expect(sealed.length).toBe(12 + 16 + Buffer.byteLength(secret));
    expect(sealed.includes(Buffer.from(secret))).toBe(false);
    expect(b.seal(secret).equals(sealed)).toBe(false);
    expect(b.open(sealed)).toBe(secret);
  });

  it('refuses an altered ciphertext and one sealed under another key', async () => {
    const b = await box();
    const sealed = b.seal('whsec_abc');
    const altered = Buffer.from(sealed);
    altered[altered.length - 1] ^= 1;
    expect(() => b.open(altered)).toThrow();
    expect(() => openWith(randomBytes(32), sealed)).toThrow();
    expect(() => b.open(sealed.subarray(0, 20))).toThrow();
  });

  it('accepts SECRETS_KEY as hex, base64 or base64url', async () => {
    const sealed = sealWith(KEY, 'whsec_x');
    expect((await box(KEY.toString('hex'))).open(sealed)).toBe('whsec_x');
    expect((await box(KEY.toString('base64url'))).open(sealed)).toBe('whsec_x');
    expect(() => decodeSecretsKey('c2hvcnQ=')).toThrow();
  });

  it('signs with the current secret, and the previous one only while its grace lasts', async () => {
    const b = await box();
    const now = new Date('2026-05-16T12:00:00Z');
    const endpoint = { secretCiphertext: b.seal('whsec_new'), previousSecretCiphertext: b.seal('whsec_old'), previousSecretExpiresAt: new Date(now.getTime() + 1000) };
    expect(b.signingSecrets(endpoint, now)).toEqual(['whsec_new', 'whsec_old']);
    expect(b.signingSecrets({ ...endpoint, previousSecretExpiresAt: now }, now)).toEqual(['whsec_new']);
    expect(b.signingSecrets({ ...endpoint, previousSecretCiphertext: null, previousSecretExpiresAt: null }, now)).toEqual(['whsec_new']);
  });

  it('opens each signing secret once however many deliveries sign with it, and a rotated one anew', async () => {
    const b = await box();
    const open = jest.spyOn(b, 'open');
    const now = new Date('2026-05-16T12:00:00Z');
    const first = { secretCiphertext: b.seal('whsec_first'), previousSecretCiphertext: null, previousSecretExpiresAt: null };
    for (let n = 0; n < 3; n++) expect(b.signingSecrets(first, now)).toEqual(['whsec_first']);
    expect(open).toHaveBeenCalledTimes(1);

    const rotated = { secretCiphertext: b.seal('whsec_second'), previousSecretCiphertext: first.secretCiphertext, previousSecretExpiresAt: new Date(now.getTime() + 1000) };
    expect(b.signingSecrets(rotated, now)).toEqual(['whsec_second', 'whsec_first']);
    expect(b.signingSecrets(rotated, now)).toEqual(['whsec_second', 'whsec_first']);
    expect(open).toHaveBeenCalledTimes(2);
  });

  it('keeps at most 10,000 opened secrets, the oldest going first', async () => {
    const b = await box();
    const now = new Date('2026-05-16T12:00:00Z');
    const endpoints = Array.from({ length: 10_001 }, (_, n) => ({ secretCiphertext: b.seal(`whsec_${n}`), previousSecretCiphertext: null, previousSecretExpiresAt: null }));
    for (const endpoint of endpoints) b.signingSecrets(endpoint, now);
    const open = jest.spyOn(b, 'open');
    b.signingSecrets(endpoints[10_000], now);
    b.signingSecrets(endpoints[1], now);
    expect(open).toHaveBeenCalledTimes(0);
    expect(b.signingSecrets(endpoints[0], now)).toEqual(['whsec_0']);
    expect(open).toHaveBeenCalledTimes(1);
  });
});
