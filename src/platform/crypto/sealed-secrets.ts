import { Inject, Injectable } from '@nestjs/common';
import { SecretsCipher } from './secrets-cipher.js';

/**
 * Re-seals one kind of stored value under SECRETS_KEY with `reseal` (null: already under it);
 * answers how many it re-sealed.
 */
export type Resealer = (reseal: (sealed: Buffer) => Buffer | null) => Promise<number>;

/**
 * What holds values sealed by SecretsCipher, so that `secrets:reseal` reaches them all without
 * the platform importing the features: each module registers its resealer at start (webhooks,
 * its endpoints' signing secrets; the idempotency store, the sealed answers it keeps).
 */
@Injectable()
export class SealedSecrets {
  private readonly resealers = new Map<string, Resealer>();

  constructor(@Inject(SecretsCipher) private readonly cipher: SecretsCipher) {}

  register(name: string, resealer: Resealer): void {
    this.resealers.set(name, resealer);
  }

  /**
   * Every stored sealed value under SECRETS_KEY, then the development key deleted (with
   * SECRETS_KEY set): after it, SECRETS_KEY_PREVIOUS and the development key are needed no more.
   * Answers how many values of each kind were re-sealed. A value no key opens stops it, named.
   */
  async resealAll(): Promise<{ resealed: Record<string, number>; development_key_deleted: boolean }> {
    const resealed: Record<string, number> = {};
    for (const [name, resealer] of this.resealers) resealed[name] = await resealer((sealed) => this.cipher.resealed(sealed));
    return { resealed, development_key_deleted: await this.cipher.forgetDevelopmentKey() };
  }
}
