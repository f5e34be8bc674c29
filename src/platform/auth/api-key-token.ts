import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API keys read `oh_live_<prefix>_<secret>`: the prefix finds the row, the secret is checked
 * against its stored SHA-256 in constant time. MCP tokens (`oht_`) have their own format and
 * are refused here.
 */
const KEY = /^oh_live_([a-z0-9]{12})_([A-Za-z0-9]{43})$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export interface ParsedApiKey {
  prefix: string;
  secret: string;
}

export function parseApiKey(token: string): ParsedApiKey | null {
  const match = KEY.exec(token);
  return match ? { prefix: match[1], secret: match[2] } : null;
}

function randomString(length: number, alphabet: string): string {
  // Rejection sampling keeps every character uniformly likely.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

/** A random public prefix (finds the row) and secret (only its hash is stored); MCP tokens use the same parts. */
export function randomPrefixAndSecret(): { prefix: string; secret: string } {
  return { prefix: randomString(12, 'abcdefghijklmnopqrstuvwxyz0123456789'), secret: randomString(43, ALPHABET) };
}

export function generateApiKey(): { token: string; prefix: string; secretHash: Buffer } {
  const { prefix, secret } = randomPrefixAndSecret();
  return { token: `oh_live_${prefix}_${secret}`, prefix, secretHash: hashSecret(secret) };
}

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export function secretMatches(secret: string, storedHash: Buffer): boolean {
  const candidate = hashSecret(secret);
  return storedHash.length === candidate.length && timingSafeEqual(candidate, storedHash);
}

const DUMMY_HASH = hashSecret('no-such-credential');

/**
 * Whether `secret` matches a stored hash that may not exist: an unknown prefix still costs one
 * hash and one constant-time comparison, so its answer takes as long as a wrong secret's.
 */
export function secretMatchesStored(secret: string, storedHash: Buffer | undefined): boolean {
  return secretMatches(secret, storedHash ?? DUMMY_HASH) && storedHash !== undefined;
}
