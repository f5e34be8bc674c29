import { jest } from '@jest/globals';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { QueryRunner } from 'typeorm';
import { commitWithHook, refuseChangeOutsideTransaction, takeBegunTransaction, withCommitHook } from './commit-hook.js';

/** A transaction's query runner: what it is sent, in order (`COMMIT` for commitTransaction). */
const sent: string[] = [];
const runner = {
  commitTransaction: async () => void sent.push('COMMIT'),
  connect: async () => ({ query: async (text: string) => void sent.push(text) }),
  isTransactionActive: true,
  transactionDepth: 1,
};
const commit = () => commitWithHook(runner as unknown as QueryRunner);
beforeEach(() => {
  sent.length = 0;
  runner.isTransactionActive = true;
  runner.transactionDepth = 1;
});

describe('withCommitHook', () => {
  afterEach(() => jest.restoreAllMocks());

  it("runs each call's own hook in its work, and switches the storage off once no call is running", async () => {
    const disable = jest.spyOn(AsyncLocalStorage.prototype, 'disable');
    const ran: string[] = [];
    let finishFirst!: () => void;
    const first = withCommitHook(
      async (done) => {
        ran.push('first');
        await done();
      },
      async () => {
        await new Promise<void>((resolve) => (finishFirst = resolve));
        await commit();
      },
    );
    await withCommitHook(
      async (done) => {
        ran.push('second');
        await done();
      },
      commit,
    );
    expect(ran).toEqual(['second']);
    // The first call still runs: its hook must stay readable.
    expect(disable).not.toHaveBeenCalled();
    finishFirst();
    await first;
    expect(ran).toEqual(['second', 'first']);
    expect(disable).toHaveBeenCalledTimes(1);
    // Off, and no hook outside a call: a plain commit.
    sent.length = 0;
    await commit();
    expect(ran).toEqual(['second', 'first']);
    expect(sent).toEqual(['COMMIT']);
  });

  it('switches the storage off after a call whose work failed, and on again for the next', async () => {
    const disable = jest.spyOn(AsyncLocalStorage.prototype, 'disable');
    await expect(withCommitHook(async () => undefined, () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(disable).toHaveBeenCalledTimes(1);
    const ran: string[] = [];
    await withCommitHook(async (done) => {
      ran.push('again');
      await done();
    }, commit);
    expect(ran).toEqual(['again']);
    expect(disable).toHaveBeenCalledTimes(2);
  });
});

describe('commitWithHook', () => {
  it("sends the hook's statement and the COMMIT as one query, and leaves the runner as a commit does", async () => {
    await withCommitHook((done) => done("SELECT mark('a')"), commit);
    expect(sent).toEqual(["SELECT mark('a'); COMMIT"]);
    expect(runner).toMatchObject({ isTransactionActive: false, transactionDepth: 0 });
  });

  it("tells the hook what the transaction's work returned", async () => {
    const seen: unknown[] = [];
    const result = { id: 'the result' };
    await withCommitHook(async (done, answered) => {
      seen.push(answered);
      await done();
    }, () => commitWithHook(runner as unknown as QueryRunner, result));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBe(result);
  });

  it('refuses a hook that returns without committing, so its transaction is rolled back', async () => {
    await expect(withCommitHook(async () => undefined, commit)).rejects.toThrow(/without committing/);
    expect(sent).toEqual([]);
  });
});

describe('takeBegunTransaction', () => {
  const begun = () => {
    const ended: string[] = [];
    const transaction = {
      rollbackTransaction: async () => void ended.push('ROLLBACK'),
      release: async () => void ended.push('release'),
    };
    return { ended, transaction: transaction as unknown as QueryRunner };
  };

  it("hands the work's first transaction the one begun for it, once", async () => {
    const { ended, transaction } = begun();
    const taken: (QueryRunner | undefined)[] = [];
    await withCommitHook(async () => undefined, async () => {
      taken.push(takeBegunTransaction(), takeBegunTransaction());
    }, transaction);
    expect(taken).toEqual([transaction, undefined]);
    // Taken, it is the taker's to end.
    expect(ended).toEqual([]);
    expect(takeBegunTransaction()).toBeUndefined();
  });

  it('rolls back and gives back a transaction the work did not take, when the work ends or fails', async () => {
    const ok = begun();
    await withCommitHook(async () => undefined, async () => undefined, ok.transaction);
    expect(ok.ended).toEqual(['ROLLBACK', 'release']);
    const failed = begun();
    await expect(withCommitHook(async () => undefined, () => Promise.reject(new Error('refused')), failed.transaction)).rejects.toThrow('refused');
    expect(failed.ended).toEqual(['ROLLBACK', 'release']);
  });

  it('refuses any tenant statement outside a transaction while the begun one waits to be taken', async () => {
    await withCommitHook(async () => undefined, async () => {
      expect(() => refuseChangeOutsideTransaction('SELECT id FROM invoices WHERE tenant_id = $1')).toThrow(/reads outside its transaction/);
      takeBegunTransaction();
      expect(() => refuseChangeOutsideTransaction('SELECT id FROM invoices WHERE tenant_id = $1')).not.toThrow();
    }, begun().transaction);
  });
});

describe('refuseChangeOutsideTransaction', () => {
  const changes = [
    'INSERT INTO customers (tenant_id, name) VALUES ($1, $2)',
    'update webhook_deliveries set next_attempt_at = clock_timestamp() WHERE tenant_id = $1',
    'UPDATE invoices AS i SET notes = NULL WHERE i.tenant_id = $1',
    'WITH gone AS (DELETE FROM events WHERE tenant_id = $1 RETURNING id) SELECT count(*) FROM gone',
  ];
  const reads = ['SELECT id FROM invoices WHERE tenant_id = $1 FOR UPDATE', 'SELECT id FROM webhook_deliveries WHERE tenant_id = $1 FOR UPDATE SKIP LOCKED', 'SELECT updated_at FROM invoices WHERE tenant_id = $1'];

  it('refuses, while an idempotent request runs, a statement that changes rows, and a repository write (no text)', async () => {
    await withCommitHook(async () => undefined, async () => {
      for (const sql of [...changes, undefined]) expect(() => refuseChangeOutsideTransaction(sql)).toThrow(/outside a transaction/);
      for (const sql of reads) expect(() => refuseChangeOutsideTransaction(sql)).not.toThrow();
    });
  });

  it('lets everything through when no idempotent request runs', () => {
    for (const sql of [...changes, ...reads, undefined]) expect(() => refuseChangeOutsideTransaction(sql)).not.toThrow();
  });
});
