import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager } from 'typeorm';

export type CommitHook = (manager: EntityManager) => Promise<void>;

/** The hook of the request whose work is running, if it set one. */
const hooks = new AsyncLocalStorage<CommitHook>();

/**
 * Runs `work` so that every tenant transaction it commits first runs `hook` inside that
 * transaction (TenantData.transaction). The idempotency interceptor uses it to commit a
 * request's claim with the request's change.
 */
export function withCommitHook<T>(hook: CommitHook, work: () => Promise<T>): Promise<T> {
  return hooks.run(hook, work);
}

/** Called by a tenant transaction just before it commits; a hook that throws rolls it back. */
export async function runCommitHook(manager: EntityManager): Promise<void> {
  await hooks.getStore()?.(manager);
}
