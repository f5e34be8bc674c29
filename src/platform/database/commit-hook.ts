import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager } from 'typeorm';

export type CommitHook = (manager: EntityManager) => Promise<void>;

/** The hook of the request whose work is running, if it set one. */
const hooks = new AsyncLocalStorage<CommitHook>();

/** How many `withCommitHook` calls are running. */
let running = 0;

/**
 * Runs `work` so that every tenant transaction it commits first runs `hook` inside that
 * transaction (TenantData.transaction). The idempotency interceptor uses it to commit a
 * request's claim with the request's change.
 *
 * On Node 20 a running AsyncLocalStorage hooks every promise of the process, for good: once one
 * idempotent write had run, every later request cost about 8 % more CPU (docs/benchmarks.md, "The
 * fourteenth session"). So the storage is switched off whenever no call is running. Work a call
 * left running may then read no hook, or, once a later call switched it on, its own again, which
 * by then does nothing (the idempotency interceptor's `handling`).
 */
export async function withCommitHook<T>(hook: CommitHook, work: () => Promise<T>): Promise<T> {
  running += 1;
  try {
    return await hooks.run(hook, work);
  } finally {
    running -= 1;
    if (running === 0) hooks.disable();
  }
}

/** Called by a tenant transaction just before it commits; a hook that throws rolls it back. */
export async function runCommitHook(manager: EntityManager): Promise<void> {
  await hooks.getStore()?.(manager);
}

/** A statement that changes rows; `FOR UPDATE` locks them, which is no change. */
const CHANGE = /\b(insert\s+into|update\s+[\w.]+(\s+(as\s+)?\w+)?\s+set|delete\s+from|merge\s+into)\b/i;

/**
 * Refuses a change made outside a transaction while an idempotent request runs: it would commit
 * without the request's claim, and a repeat could then take the claim over and make the change
 * again (the delivery retry did until a review found it). TenantScope and TenantRepository call
 * it before each statement they run outside a transaction: `sql` when it is a text, which is
 * let through unless it changes rows.
 */
export function refuseChangeOutsideTransaction(sql?: string): void {
  if (hooks.getStore() === undefined || (sql !== undefined && !CHANGE.test(sql))) return;
  throw new Error('An idempotent request changes data outside a transaction: make the change in TenantData.transaction, so that its claim commits with it');
}
