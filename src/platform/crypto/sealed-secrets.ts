import { Inject, Injectable } from '@nestjs/common';
import { ConfigError } from '../config/app-config.js';
import { SecretsCipher } from './secrets-cipher.js';

/** One kind of stored sealed value, as the module that stores it registers it. */
export interface SealedKind {
  /** Re-seals every value under SECRETS_KEY with `reseal` (null: already under it); answers how many it re-sealed. */
  reseal(reseal: (sealed: Buffer) => Buffer | null): Promise<number>;
  /** The `limit` values sealed last, for the check at start. */
  newest(limit: number): Promise<Buffer[]>;
}

/** What one kind's newest values showed at start: how many were read, and how many no key opened. */
export interface SealedSample {
  kind: string;
  sampled: number;
  unopened: number;
}

/** Values per kind read at start: the last ones sealed are under the key in use until then. */
const SAMPLE_SIZE = 20;

/**
 * What holds values sealed by SecretsCipher, so that `secrets:reseal` and the check at start
 * reach them all without the platform importing the features: each module registers its kind at
 * start (webhooks, its endpoints' signing secrets; the idempotency store, the sealed answers it keeps).
 */
@Injectable()
export class SealedSecrets {
  private readonly kinds = new Map<string, SealedKind>();

  constructor(@Inject(SecretsCipher) private readonly cipher: SecretsCipher) {}

  register(name: string, kind: SealedKind): void {
    this.kinds.set(name, kind);
  }

  /**
   * Every stored sealed value under SECRETS_KEY, then the development key deleted (with
   * SECRETS_KEY set): after it, SECRETS_KEY_PREVIOUS and the development key are needed no more.
   * Answers how many values of each kind were re-sealed. A value no key opens stops it, named.
   */
  async resealAll(): Promise<{ resealed: Record<string, number>; development_key_deleted: boolean }> {
    const resealed: Record<string, number> = {};
    for (const [name, kind] of this.kinds) resealed[name] = await kind.reseal((sealed) => this.cipher.resealed(sealed));
    return { resealed, development_key_deleted: await this.cipher.forgetDevelopmentKey() };
  }

  /** Each kind's newest values, and how many of them no key of this process opens. */
  async sample(): Promise<SealedSample[]> {
    const samples: SealedSample[] = [];
    for (const [kind, { newest }] of this.kinds) {
      const values = await newest(SAMPLE_SIZE);
      samples.push({ kind, sampled: values.length, unopened: values.filter((sealed) => !this.cipher.opens(sealed)).length });
    }
    return samples;
  }

  /**
   * Refuses a start whose keys open none of a kind's newest values: SECRETS_KEY mistyped, or
   * changed without SECRETS_KEY_PREVIOUS. Started anyway, every delivery of every endpoint
   * would wait for ever on a secret it cannot open. Some unopened among others opened is an
   * older key dropped too soon: answered for the caller to warn about, not refused.
   */
  async assertOpenable(): Promise<SealedSample[]> {
    const samples = await this.sample();
    const stranded = samples.filter(({ sampled, unopened }) => sampled > 0 && unopened === sampled);
    if (stranded.length > 0) {
      throw new ConfigError(
        `SECRETS_KEY: opens none of the last stored ${stranded.map(({ kind, sampled }) => `${kind} secrets (${sampled} read)`).join(' or ')}; ` +
          'they were sealed under another key. Set SECRETS_KEY back to it, or keep it in SECRETS_KEY_PREVIOUS until `secrets:reseal` has run.',
      );
    }
    return samples.filter(({ unopened }) => unopened > 0);
  }
}
