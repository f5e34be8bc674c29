import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Decodes SECRETS_KEY (64 hex digits, or base64/base64url of 32 bytes). */
export function decodeSecretsKey(text: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== 32) throw new Error('SECRETS_KEY must decode to 32 bytes');
  return key;
}

/** AES-256-GCM with a random 96-bit IV; stored as IV || tag || ciphertext. */
export function sealWith(key: Buffer, plaintext: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/** Throws when the ciphertext was altered or sealed under another key. */
export function openWith(key: Buffer, sealed: Buffer): string {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new Error('sealed value is truncated');
  const decipher = createDecipheriv(ALGORITHM, key, sealed.subarray(0, IV_BYTES));
  decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}

/**
 * Encryption at rest under SECRETS_KEY, for what must be recoverable but never stored in the
 * clear: webhook signing secrets, and stored idempotent answers that carry one. Without
 * SECRETS_KEY (never in production: the configuration refuses to load) one key is generated per
 * database and kept in `platform_settings`, so every process of a development setup can open
 * what another sealed — at the price that the key then sits beside the ciphertexts, which is
 * why the process warns at start (MISSING_SECRETS_KEY_WARNING, once however many roles it runs).
 *
 * What was sealed before SECRETS_KEY was set or changed still opens: under the development key
 * still stored, or a key named in SECRETS_KEY_PREVIOUS. Setting SECRETS_KEY, as the warning
 * says to, thus keeps every endpoint delivering (it stranded them all: their secrets no longer
 * opened, and their deliveries were offered again for ever).
 */
export const MISSING_SECRETS_KEY_WARNING =
  'SECRETS_KEY is not set: webhook signing secrets are encrypted under a development key stored in the database. ' +
  'Set SECRETS_KEY (openssl rand -base64 32) for any real deployment; NODE_ENV=production refuses to start without it.';

@Injectable()
export class SecretsCipher implements OnModuleInit {
  /** The first seals; each opens, in turn. */
  private keys: Buffer[] = [];

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async onModuleInit(): Promise<void> {
    if (this.config.SECRETS_KEY === undefined) {
      this.keys = [decodeSecretsKey(await this.sharedDevelopmentKey())];
      return;
    }
    const development = await this.storedDevelopmentKey();
    this.keys = [this.config.SECRETS_KEY, ...this.config.SECRETS_KEY_PREVIOUS, ...(development === undefined ? [] : [development])].map(decodeSecretsKey);
  }

  seal(plaintext: string): Buffer {
    return sealWith(this.keys[0], plaintext);
  }

  /** Throws when no key opens it: altered, or sealed under a key this process does not know. */
  open(sealed: Buffer): string {
    return this.opened(sealed).plaintext;
  }

  /** Whether a key of this process opens it. */
  opens(sealed: Buffer): boolean {
    try {
      this.opened(sealed);
      return true;
    } catch {
      return false;
    }
  }

  /** `sealed` under SECRETS_KEY: null when it already is; throws when no key opens it. */
  resealed(sealed: Buffer): Buffer | null {
    const { plaintext, underCurrent } = this.opened(sealed);
    return underCurrent ? null : sealWith(this.keys[0], plaintext);
  }

  /** The plaintext, and whether SECRETS_KEY (the first key) opened it; the current key's error when none does. */
  private opened(sealed: Buffer): { plaintext: string; underCurrent: boolean } {
    const [current, ...previous] = this.keys;
    try {
      return { plaintext: openWith(current, sealed), underCurrent: true };
    } catch (error) {
      for (const key of previous) {
        try {
          return { plaintext: openWith(key, sealed), underCurrent: false };
        } catch {
          // Not sealed under this one either.
        }
      }
      throw error;
    }
  }

  /**
   * With SECRETS_KEY set, deletes the development key a start without it stored, once nothing
   * sealed under it is left (secrets:reseal); answers whether there was one.
   */
  async forgetDevelopmentKey(): Promise<boolean> {
    if (this.config.SECRETS_KEY === undefined) return false;
    // TypeORM answers a DELETE as [rows, count].
    const [deleted]: [{ value: string }[], number] = await this.dataSource.query(`DELETE FROM platform_settings WHERE name = 'development_secrets_key' RETURNING value`);
    if (deleted.length === 0) return false;
    const development = decodeSecretsKey(deleted[0].value);
    this.keys = this.keys.filter((key, index) => index === 0 || !key.equals(development));
    return true;
  }

  private async storedDevelopmentKey(): Promise<string | undefined> {
    const [row] = await this.dataSource.query(`SELECT value FROM platform_settings WHERE name = 'development_secrets_key'`);
    return row?.value as string | undefined;
  }

  private async sharedDevelopmentKey(): Promise<string> {
    await this.dataSource.query(
      `INSERT INTO platform_settings (name, value) VALUES ('development_secrets_key', $1) ON CONFLICT (name) DO NOTHING`,
      [randomBytes(32).toString('base64')],
    );
    const [{ value }] = await this.dataSource.query(`SELECT value FROM platform_settings WHERE name = 'development_secrets_key'`);
    return value as string;
  }
}
