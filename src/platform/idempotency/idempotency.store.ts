import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource, type QueryRunner } from 'typeorm';
import type { ErrorName } from '../catalog/errors.js';
import { SealedSecrets } from '../crypto/sealed-secrets.js';
import { SecretsCipher } from '../crypto/secrets-cipher.js';
import { type Commit, recordTransaction } from '../database/commit-hook.js';
import { hotQuery } from '../database/hot-query.js';
import { sqlLiteral } from '../database/sql-literal.js';
import { DomainException } from '../errors/domain.exception.js';
import { isUuid } from '../validation/uuid.pipe.js';
import { IDEMPOTENCY_RETENTION_HOURS, STALE_CLAIM_SECONDS } from './idempotency-policy.js';

/** What identifies a repeat: same company, API key, Idempotency-Key, method and path. */
export interface IdempotencyScope {
  tenantId: string;
  apiKeyId: string;
  key: string;
  method: string;
  path: string;
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  /** The body exactly as sent, or null for an empty body. */
  body: string | null;
}

/** A claim on a key: the holder runs the request and must then store or release it. */
export interface IdempotencyClaim {
  id: string;
  lockToken: string;
}

export type ClaimOutcome =
  | { kind: 'claimed'; claim: IdempotencyClaim; /** Begun after the claim, on its connection, when asked for. */ transaction?: QueryRunner }
  | { kind: 'replay'; response: StoredResponse }
  | {
      kind: 'conflict';
      error: Extract<ErrorName, 'IdempotencyBodyMismatch' | 'IdempotencyInProgress' | 'IdempotencyReplayUnavailable'>;
      /** Set when the request's change committed but its process stopped before storing the answer (not: too large to keep). */
      reason?: 'answer_lost';
    };

interface ExistingRow {
  request_hash: string;
  /** False: hashed on the body alone (before the query counted, or by an older process). */
  hash_covers_query: boolean;
  state: 'in_progress' | 'committed' | 'completed' | 'too_large';
  stale: boolean;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  response_body_ciphertext: Buffer | null;
}

/**
 * Inserts a fresh claim, or takes over a row that has expired or whose in-progress claim is
 * stale (same body, older than STALE_CLAIM_SECONDS): one statement (in the function, migration
 * idempotency-claim-function), so under concurrency exactly one request gets an id back; the
 * others see the row and are answered from it. A `committed` claim is never taken over: its
 * change is done (commitMarked). The claim's transaction commits without waiting for its WAL flush
 * (migration idempotency-claim-without-flush-wait): the change's commit flushes it.
 */
const CLAIM_SQL = `SELECT idempotency_claim($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS id`;

/**
 * Stores the answer (or that it is too large), where the claim is still this request's. The key's
 * 24 hours run from its claim: expires_at is indexed, and an update that changes no indexed
 * column can be heap-only (migration idempotency-heap-only-marks).
 */
const FINISH_SQL = `
  UPDATE idempotency_keys
     SET state = $3, response_status = $4, response_headers = $5, response_body = $6, response_body_ciphertext = $7,
         updated_at = clock_timestamp()
   WHERE id = $1 AND lock_token = $2`;

/** SQLSTATE of idempotency_mark_committed's refusal: the claim is no longer this request's. */
const CLAIM_TAKEN_OVER = 'OHI01';

const CLEANUP_BATCH = 1000;

/** The `idempotency_keys` table: claims, stored responses and their expiry. */
@Injectable()
export class IdempotencyStore implements OnModuleInit {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(SecretsCipher) private readonly cipher: SecretsCipher,
    @Inject(SealedSecrets) private readonly sealed: SealedSecrets,
  ) {}

  /** Its sealed answers (those that carry a secret) are re-sealed, and checked at start, with every other sealed value. */
  onModuleInit(): void {
    this.sealed.register('idempotency_keys', {
      reseal: (reseal) => this.resealAnswers(reseal),
      newest: (limit) => this.newestSealedAnswers(limit),
    });
  }

  private async newestSealedAnswers(limit: number): Promise<Buffer[]> {
    const rows: { response_body_ciphertext: Buffer }[] = await this.dataSource.query(
      `SELECT response_body_ciphertext FROM idempotency_keys WHERE response_body_ciphertext IS NOT NULL ORDER BY created_at DESC LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.response_body_ciphertext);
  }

  private resealAnswers(reseal: (sealed: Buffer) => Buffer | null): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const rows: { id: string; response_body_ciphertext: Buffer }[] = await manager.query(
        `SELECT id, response_body_ciphertext FROM idempotency_keys WHERE response_body_ciphertext IS NOT NULL FOR UPDATE`,
      );
      let count = 0;
      for (const row of rows) {
        const again = reseal(row.response_body_ciphertext);
        if (again === null) continue;
        await manager.query(`UPDATE idempotency_keys SET response_body_ciphertext = $2 WHERE id = $1`, [row.id, again]);
        count += 1;
      }
      return count;
    });
  }

  /**
   * `hashes`: the request's and its body's alone (requestHashes), to compare with rows hashed so.
   * `begin`: a claimed request is handed its transaction, begun on the connection the claim was
   * sent on (claimAndBegin).
   */
  async claim(scope: IdempotencyScope, hashes: { request: string; body: string }, options: { begin?: boolean } = {}): Promise<ClaimOutcome> {
    // A row seen as conflicting can vanish before it is read (its request was not stored, or it
    // expired and was cleaned up); the next attempt then claims it.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const lockToken = randomUUID();
      const values = [scope.tenantId, scope.apiKeyId, scope.key, scope.method, scope.path, hashes.request, hashes.body, lockToken, IDEMPOTENCY_RETENTION_HOURS, STALE_CLAIM_SECONDS];
      if (attempt === 0 && options.begin) {
        const begun = await this.claimAndBegin(values);
        if (begun) return { kind: 'claimed', claim: { id: begun.id, lockToken }, transaction: begun.transaction };
      } else {
        const [claimed] = await hotQuery<{ id: string | null }>(this.dataSource, 'idempotency-claim', CLAIM_SQL, values);
        if (claimed.id !== null) return { kind: 'claimed', claim: { id: claimed.id, lockToken } };
      }

      const [row]: ExistingRow[] = await this.dataSource.query(
        `SELECT request_hash, hash_covers_query, state, response_status, response_headers, response_body, response_body_ciphertext,
                locked_at <= clock_timestamp() - make_interval(secs => $6) AS stale
           FROM idempotency_keys
          WHERE tenant_id = $1 AND api_key_id = $2 AND key = $3 AND method = $4 AND md5(path) = md5($5)`,
        [scope.tenantId, scope.apiKeyId, scope.key, scope.method, scope.path, STALE_CLAIM_SECONDS],
      );
      if (!row) continue;
      if (row.request_hash !== (row.hash_covers_query ? hashes.request : hashes.body)) return { kind: 'conflict', error: 'IdempotencyBodyMismatch' };
      if (row.state === 'in_progress') return { kind: 'conflict', error: 'IdempotencyInProgress' };
      // Committed and then silent past the stale limit: its process stopped before storing the answer.
      if (row.state === 'committed') {
        return row.stale ? { kind: 'conflict', error: 'IdempotencyReplayUnavailable', reason: 'answer_lost' } : { kind: 'conflict', error: 'IdempotencyInProgress' };
      }
      if (row.state === 'too_large') return { kind: 'conflict', error: 'IdempotencyReplayUnavailable' };
      return {
        kind: 'replay',
        response: {
          status: row.response_status!,
          headers: row.response_headers ?? {},
          body: row.response_body_ciphertext ? this.cipher.open(row.response_body_ciphertext) : row.response_body,
        },
      };
    }
    return { kind: 'conflict', error: 'IdempotencyInProgress' };
  }

  /**
   * The claim committed, and the request's transaction begun after it on the same connection, in
   * one round trip (one simple query, so the values are written in as literals): each round trip
   * costs the service and PostgreSQL more CPU than the statement in it (docs/benchmarks.md, "The
   * twenty-first session"). Undefined when the key is held or answered: the transaction is then
   * rolled back and its connection given back.
   */
  private async claimAndBegin(values: (string | number)[]): Promise<{ id: string; transaction: QueryRunner } | undefined> {
    const literals = values.map(sqlLiteral);
    const transaction = this.dataSource.createQueryRunner();
    try {
      const connection = (await transaction.connect()) as { query(text: string): Promise<{ rows: { id: string | null }[] }[]> };
      // BEGIN … COMMIT around the claim: without it, PostgreSQL warns of a COMMIT in an implicit transaction, in its log, each time.
      const answers = await connection.query(`BEGIN; SELECT idempotency_claim(${literals.join(', ')}) AS id; COMMIT; START TRANSACTION`).catch(async (error: unknown) => {
        // A failed statement leaves the block open and aborted.
        await connection.query('ROLLBACK').catch(() => undefined);
        throw error;
      });
      const id = answers[1].rows[0].id;
      if (id === null) {
        await connection.query('ROLLBACK');
        await transaction.release();
        return undefined;
      }
      recordTransaction(transaction, true);
      return { id, transaction };
    } catch (error) {
      if (!transaction.isReleased) await transaction.release();
      throw error;
    }
  }

  /**
   * Commits the request's change with its claim marked `committed` (the interceptor's commit
   * hook), so the change and the mark commit together: if the process dies before the answer is
   * stored, a repeat learns that the request ran (409 replay_unavailable) instead of taking the
   * claim over and running it a second time. A claim taken over meanwhile (its holder ran past
   * the stale limit) no longer matches its lock token: the transaction is rolled back, so the two
   * holders never both commit.
   */
  async commitMarked(commit: Commit, claim: IdempotencyClaim): Promise<void> {
    await this.committing(commit, claim, 'idempotency_mark_committed');
  }

  /**
   * As commitMarked, but the claim is completed with `answer` in the same statement: the change
   * and its answer commit together, and nothing is left to store after the commit (a route whose
   * answer is its transaction's result). Not for a sealed answer, which is encrypted.
   */
  async commitAnswered(commit: Commit, claim: IdempotencyClaim, answer: StoredResponse): Promise<void> {
    await this.committing(commit, claim, 'idempotency_complete_at_commit', answer.status, JSON.stringify(answer.headers), answer.body);
  }

  /** Commits with a call of `fn(claim id, lock token, …more)`, which raises when the claim was taken over. */
  private async committing(commit: Commit, claim: IdempotencyClaim, fn: string, ...more: (string | number | null)[]): Promise<void> {
    // Both are UUIDs this process read or made; escaped as every value of the text is.
    if (!isUuid(claim.id) || !isUuid(claim.lockToken)) throw new Error('An idempotency claim is named by UUIDs');
    try {
      await commit(`SELECT ${fn}(${[claim.id, claim.lockToken, ...more].map(sqlLiteral).join(', ')})`);
    } catch (error) {
      if ((error as { code?: unknown }).code !== CLAIM_TAKEN_OVER) throw error;
      throw new DomainException('IdempotencyInProgress', 'A repeat of this request took it over; it was not applied here.');
    }
  }

  /**
   * Stores the answer for replay; ignored when the claim was taken over meanwhile. `sealed`:
   * the body carries a secret and is stored encrypted.
   */
  async complete(claim: IdempotencyClaim, response: StoredResponse, sealed = false): Promise<void> {
    await this.finish(claim, 'completed', response.status, response.headers, response.body, sealed);
  }

  /** Records that the request ran but its answer is too large to replay. */
  async completeTooLarge(claim: IdempotencyClaim, status: number): Promise<void> {
    await this.finish(claim, 'too_large', status, null, null);
  }

  /**
   * Forgets the claim of an answer that is not stored, so a repeat runs the request again; but
   * never one whose change committed. A request can fail after its commit (the connection lost
   * while COMMIT was answered: the change is saved, the request sees a 503): that claim stays, and
   * is made stale at once, so a repeat is told the request ran (answer_lost) instead of running it
   * a second time.
   */
  async release(claim: IdempotencyClaim): Promise<void> {
    await this.dataSource.query(
      `WITH forgotten AS (DELETE FROM idempotency_keys WHERE id = $1 AND lock_token = $2 AND state = 'in_progress' RETURNING id)
       UPDATE idempotency_keys SET locked_at = '-infinity', updated_at = clock_timestamp()
        WHERE id = $1 AND lock_token = $2 AND state = 'committed' AND NOT EXISTS (SELECT 1 FROM forgotten)`,
      [claim.id, claim.lockToken],
    );
  }

  /** Deletes expired rows in batches; returns how many were deleted. */
  async deleteExpired(): Promise<number> {
    let total = 0;
    for (;;) {
      const [, deleted]: [unknown[], number] = await this.dataSource.query(
        `DELETE FROM idempotency_keys WHERE id IN (
           SELECT id FROM idempotency_keys WHERE expires_at <= clock_timestamp() LIMIT $1 FOR UPDATE SKIP LOCKED)`,
        [CLEANUP_BATCH],
      );
      total += deleted;
      if (deleted < CLEANUP_BATCH) return total;
    }
  }

  private async finish(
    claim: IdempotencyClaim,
    state: 'completed' | 'too_large',
    status: number,
    headers: Record<string, string> | null,
    body: string | null,
    sealed = false,
  ): Promise<void> {
    const seal = sealed && body !== null;
    await hotQuery(this.dataSource, 'idempotency-finish', FINISH_SQL, [
      claim.id,
      claim.lockToken,
      state,
      status,
      headers === null ? null : JSON.stringify(headers),
      seal ? null : body,
      seal ? this.cipher.seal(body) : null,
    ]);
  }
}
