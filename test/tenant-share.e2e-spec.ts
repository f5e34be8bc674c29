import pg from 'pg';
import { Scope } from '../src/platform/catalog/scopes.js';
import { createFinanceFixture, type FinanceFixture } from './support/finance.js';
import { startApi, type TestApi } from './support/api.js';
import { createTenantSession, type TenantSession } from './support/tenant-session.js';
import { waitFor } from './support/wait-for.js';

/**
 * A company's share of the REST API's pool (API_TENANT_CONCURRENCY): its requests queued on a lock
 * of its own records hold at most their share of the process's 10 connections, and another
 * company is served meanwhile (found by the fairness review: 150 PATCHes of one invoice held 9 of
 * 10, and every other company's reads waited up to 10 s).
 */
describe("one company's share of the REST API's pool (e2e)", () => {
  let api: TestApi;
  let locker: pg.Client;
  /** Outside the locker's transaction, whose view of pg_stat_activity is a snapshot taken once. */
  let watcher: pg.Client;
  let attacker: TenantSession;
  let victim: TenantSession;
  let fin: FinanceFixture;

  beforeAll(async () => {
    api = await startApi();
    attacker = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesWrite] });
    victim = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesRead] });
    fin = await createFinanceFixture(api.app, attacker.tenant.id);
    locker = new pg.Client({ connectionString: process.env.DATABASE_URL });
    watcher = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await Promise.all([locker.connect(), watcher.connect()]);
  });
  afterAll(async () => {
    await locker?.end();
    await watcher?.end();
    await api?.close();
  });

  const waitingOnLocks = async () =>
    Number((await watcher.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)).rows[0].n);

  it('holds one company to 4 connections while its requests wait on a lock of its own, and serves another company meanwhile', async () => {
    const created = await api.http.post('/v1/invoices').set('Authorization', attacker.auth).send(fin.invoiceBody());
    expect(created.status).toBe(201);
    await locker.query('BEGIN');
    await locker.query('SELECT id FROM invoices WHERE id = $1 FOR UPDATE', [created.body.id]);
    let patches: Promise<{ status: number }[]> | undefined;
    try {
      patches = Promise.all(
        Array.from({ length: 12 }, (_, n) => api.http.patch(`/v1/invoices/${created.body.id}`).set('Authorization', attacker.auth).send({ notes: `n${n}` }).then((res) => res)),
      );
      await waitFor(async () => (await waitingOnLocks()) === 4, 10_000, "the attacker's share waiting on the lock");
      const read = await api.http.get('/v1/invoices?limit=1').set('Authorization', victim.auth);
      expect(read.status).toBe(200);
      // Still four: the others wait for a turn, holding no connection.
      expect(await waitingOnLocks()).toBe(4);
    } finally {
      await locker.query('ROLLBACK');
    }
    expect((await patches!).map((res) => res.status)).toEqual(Array(12).fill(200));
  });
});
