import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager } from 'typeorm';
import { DomainException } from '../errors/domain.exception.js';
import type { IdempotencyClaim } from './idempotency.store.js';

/** The claim of the idempotent request whose handler is running, if any. */
const running = new AsyncLocalStorage<IdempotencyClaim>();

/** Runs an idempotent request's handler with its claim in reach of the transactions it commits. */
export function withClaim<T>(claim: IdempotencyClaim, handler: () => Promise<T>): Promise<T> {
  return running.run(claim, handler);
}

/**
 * Called by every tenant transaction just before it commits. Inside an idempotent request it
 * marks the claim `committed` in the same transaction, so the change and the mark commit
 * together: if the process dies before the answer is stored, a repeat learns that the request
 * ran (409 replay_unavailable) instead of taking the claim over and running it a second time.
 * A claim taken over meanwhile (its holder ran past the stale limit) no longer matches the lock
 * token: the transaction is rolled back, so the two holders never both commit.
 */
export async function markClaimCommitted(manager: EntityManager): Promise<void> {
  const claim = running.getStore();
  if (claim === undefined) return;
  const [, marked]: [unknown[], number] = await manager.query(
    `UPDATE idempotency_keys SET state = 'committed', updated_at = clock_timestamp()
      WHERE id = $1 AND lock_token = $2 AND state IN ('in_progress', 'committed')`,
    [claim.id, claim.lockToken],
  );
  if (marked === 0) throw new DomainException('IdempotencyInProgress', 'A repeat of this request took it over; it was not applied here.');
}
