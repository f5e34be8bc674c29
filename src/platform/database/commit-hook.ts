import { AsyncLocalStorage } from 'node:async_hooks';
import type { QueryRunner } from 'typeorm';

/**
 * Commits the transaction; `statement`, when given, is sent with its COMMIT in one round trip and
 * runs just before it, in it. A statement that raises an error rolls the transaction back (the
 * COMMIT is then not run), and the error is the commit's.
 */
export type Commit = (statement?: string) => Promise<void>;

/** Must call `commit` once. `result`: what the transaction's work returned. */
export type CommitHook = (commit: Commit, result: unknown) => Promise<void>;

/** A request's hook, and the transaction begun for its work until the work takes it. */
interface RequestCommits {
  hook: CommitHook;
  begun?: QueryRunner;
}

/** The commits of the request whose work is running, if it set a hook. */
const hooks = new AsyncLocalStorage<RequestCommits>();

/** How many `withCommitHook` calls are running. */
let running = 0;

/**
 * Runs `work` so that every tenant transaction it commits is committed by `hook`
 * (TenantData.transaction). The idempotency interceptor uses it to commit a request's claim with
 * the request's change.
 *
 * On Node 20 a running AsyncLocalStorage hooks every promise of the process, for good: once one
 * idempotent write had run, every later request cost about 8 % more CPU (docs/benchmarks.md, "The
 * fourteenth session"). So the storage is switched off whenever no call is running. Work a call
 * left running may then read no hook, or, once a later call switched it on, its own again, which
 * by then does nothing (the idempotency interceptor's `handling`).
 */
export async function withCommitHook<T>(hook: CommitHook, work: () => Promise<T>, begun?: QueryRunner): Promise<T> {
  running += 1;
  const commits: RequestCommits = { hook, begun };
  try {
    return await hooks.run(commits, work);
  } finally {
    running -= 1;
    if (running === 0) hooks.disable();
    // Not taken (the request was refused before its transaction): its connection goes back.
    const untaken = takeFrom(commits);
    if (untaken) await untaken.rollbackTransaction().catch(() => undefined).finally(() => untaken.release());
  }
}

/**
 * The transaction begun for the running request's work (`withCommitHook`'s `begun`), once: the
 * first tenant transaction of the work runs in it (TenantData.transaction), and ends it.
 */
export function takeBegunTransaction(): QueryRunner | undefined {
  const commits = hooks.getStore();
  return commits && takeFrom(commits);
}

function takeFrom(commits: RequestCommits): QueryRunner | undefined {
  const begun = commits.begun;
  commits.begun = undefined;
  return begun;
}

/**
 * Commits a tenant transaction (TenantData.transaction) through the running request's hook, if
 * it set one, telling it the work's `result`; a hook that throws leaves the transaction to be
 * rolled back.
 */
export async function commitWithHook(runner: QueryRunner, result?: unknown): Promise<void> {
  const hook = hooks.getStore()?.hook;
  if (hook === undefined) return runner.commitTransaction();
  let committed = false;
  await hook(async (statement) => {
    committed = true;
    if (statement === undefined) return runner.commitTransaction();
    // A simple query: its statements run in order and stop at the first error, so the COMMIT
    // runs only after the statement succeeded. Both in one round trip instead of two: every
    // idempotent write pays it (docs/benchmarks.md, "The twentieth session").
    const connection = (await runner.connect()) as { query(text: string): Promise<unknown> };
    await connection.query(`${statement}; COMMIT`);
    recordTransaction(runner, false);
  }, result);
  if (!committed) throw new Error('A commit hook returned without committing its transaction');
}

/**
 * What QueryRunner.startTransaction (`open`) or commitTransaction records after its own statement,
 * for a transaction begun or committed by a statement sent on the runner's connection instead.
 */
export function recordTransaction(runner: QueryRunner, open: boolean): void {
  const state = runner as unknown as { isTransactionActive: boolean; transactionDepth: number };
  state.isTransactionActive = open;
  state.transactionDepth = open ? 1 : 0;
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
  const commits = hooks.getStore();
  if (commits === undefined) return;
  // Its begun transaction holds a connection meanwhile: a request holding one and waiting for
  // another from the pool could, with enough others doing the same, wait for ever.
  if (commits.begun !== undefined) {
    throw new Error('A route declared answersWithResult reads outside its transaction before it: read in TenantData.transaction');
  }
  if (sql !== undefined && !CHANGE.test(sql)) return;
  throw new Error('An idempotent request changes data outside a transaction: make the change in TenantData.transaction, so that its claim commits with it');
}
