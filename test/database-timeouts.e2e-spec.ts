import { jest } from '@jest/globals';
import pg, { type Pool, type PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { Scope } from '../src/platform/catalog/scopes.js';
import { dataSourceOptions, migrate } from '../src/platform/database/database.js';
import { DroppingClient } from '../src/platform/database/dropping-client.js';
import { startApi, type TestApi } from './support/api.js';
import { onOwnDatabase } from './support/deliveries.js';
import { createFinanceFixture, type FinanceFixture } from './support/finance.js';
import { tcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { createTenantSession, type TenantSession } from './support/tenant-session.js';
import { waitFor } from './support/wait-for.js';

// Long enough that the setup's own statements (a company, its key, an invoice) finish within it on
// a loaded CI machine: at 300 ms the setup itself timed out there.
const TIMEOUT_MS = 1_000;

// It locks `invoices`: on the run's shared database that held other files' invoice writes up.
onOwnDatabase('database_timeouts');

/**
 * A statement held up (here by a lock another session keeps on `invoices`) past
 * DATABASE_STATEMENT_TIMEOUT_MS: the request is answered 503 with Retry-After instead of
 * waiting for ever, its pool connection is free again, and nothing of it is kept.
 */
describe('database statement timeout (e2e)', () => {
  let api: TestApi;
  let session: TenantSession;
  let finance: FinanceFixture;
  let invoiceId: string;
  let locker: DataSource;

  beforeAll(async () => {
    api = await startApi({ env: { DATABASE_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS) } });
    session = await createTenantSession(api.app, { scopes: [Scope.All] });
    finance = await createFinanceFixture(api.app, session.tenant.id);
    const created = await api.http.post('/v1/invoices').set('Authorization', session.auth).send(finance.invoiceBody());
    expect(created.status).toBe(201);
    invoiceId = created.body.id;
    locker = await new DataSource(dataSourceOptions(process.env.DATABASE_URL!)).initialize();
  });
  // Each only if made: a setup that failed part way must still close what it started, or the
  // application's listeners outlive the file and fail the next one in its worker.
  afterAll(async () => {
    await locker?.destroy();
    await api?.close();
  });

  /** Runs `during` while another session holds an exclusive lock on `invoices`. */
  async function withInvoicesLocked(during: () => Promise<void>): Promise<void> {
    const client: PoolClient = await (locker.driver as unknown as { master: Pool }).master.connect();
    try {
      await client.query('BEGIN');
      await client.query('LOCK TABLE invoices IN ACCESS EXCLUSIVE MODE');
      await during();
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  }

  it('answers 503 service_unavailable with Retry-After for a read that waits past the timeout, then serves it', async () => {
    await withInvoicesLocked(async () => {
      const started = Date.now();
      const res = await api.http.get(`/v1/invoices/${invoiceId}`).set('Authorization', session.auth);
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.body).toMatchObject({ status: 503, detail_key: 'errors.common.service_unavailable' });
      expect(res.body.detail).toContain('did not answer in time');
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 2000);
    });
    const res = await api.http.get(`/v1/invoices/${invoiceId}`).set('Authorization', session.auth);
    expect(res.status).toBe(200);
  });

  it('keeps nothing of a write that timed out: no invoice, and its Idempotency-Key runs again afterwards', async () => {
    const count = async () => (await api.app.get(DataSource).query(`SELECT count(*)::int AS n FROM invoices WHERE tenant_id = $1`, [session.tenant.id]))[0].n;
    const before = await count();
    const post = () => api.http.post('/v1/invoices').set('Authorization', session.auth).set('Idempotency-Key', 'timed-out-1').send(finance.invoiceBody());
    await withInvoicesLocked(async () => {
      const res = await post();
      expect(res.status).toBe(503);
      expect(res.body.detail_key).toBe('errors.common.service_unavailable');
    });
    expect(await count()).toBe(before);
    const again = await post();
    expect(again.status).toBe(201);
    expect(again.headers['idempotency-replayed']).toBeUndefined();
    expect(await count()).toBe(before + 1);
  });

  it('answers a request for which no pool connection comes free in time 503 as well', async () => {
    // The service's pool has 10 connections: take them all.
    const pool = (api.app.get(DataSource).driver as unknown as { master: Pool }).master;
    const taken: PoolClient[] = [];
    try {
      // One at a time, each tried again when it takes longer than the pool's wait (TIMEOUT_MS, as
      // a new connection can on a busy machine): those made are released whatever happens.
      for (let tries = 0; taken.length < 10; tries += 1) {
        try {
          taken.push(await pool.connect());
        } catch (error) {
          if (tries > 50 || !/timeout/.test((error as Error).message)) throw error;
        }
      }
      const res = await api.http.get(`/v1/invoices/${invoiceId}`).set('Authorization', session.auth);
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.body.detail_key).toBe('errors.common.service_unavailable');
    } finally {
      for (const client of taken) client.release();
    }
    expect((await api.http.get(`/v1/invoices/${invoiceId}`).set('Authorization', session.auth)).status).toBe(200);
  });
});

/**
 * A server that stops answering on an open connection (a partition, a frozen host: the proxy
 * keeps the sockets but forwards nothing), where statement_timeout never fires: the request is
 * still answered 503 with Retry-After, after the statement timeout and a margin, not never.
 */
describe('a database that stops answering (e2e)', () => {
  let api: TestApi;
  let proxy: TcpProxy;

  beforeAll(async () => {
    const database = new URL(process.env.DATABASE_URL!);
    proxy = await tcpProxy({ host: database.hostname, port: Number(database.port || 5432) });
    proxy.up();
    database.host = `127.0.0.1:${proxy.port}`;
    api = await startApi({ env: { DATABASE_URL: database.toString(), DATABASE_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS) } });
  });
  afterAll(async () => {
    await api?.close();
    await proxy?.close();
  });

  it('answers 503 with Retry-After within the statement timeout and its margin, and serves again once the server does', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const read = () => api.http.get('/v1/invoices').set('Authorization', session.auth);
    expect((await read()).status).toBe(200);

    proxy.stall();
    const started = Date.now();
    const stalled = await read();
    expect(stalled.status).toBe(503);
    expect(stalled.headers['retry-after']).toBe('2');
    expect(stalled.body).toMatchObject({ status: 503, detail_key: 'errors.common.service_unavailable' });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 2000 + 2000);

    // The partition ends as such connections do: cut, and new ones work.
    proxy.down();
    proxy.up();
    await waitFor(async () => (await read()).status === 200, 10_000, 'the API to serve again');
  });

  it('closes a connection whose query went unanswered: never given out again, its open transaction never continued', async () => {
    const database = new URL(process.env.DATABASE_URL!);
    database.host = `127.0.0.1:${proxy.port}`;
    const pool = new pg.Pool({ connectionString: database.toString(), max: 1, query_timeout: 500, Client: DroppingClient });
    try {
      const client = await pool.connect();
      await client.query('BEGIN');
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      proxy.stall();
      await expect(client.query('SELECT 2')).rejects.toThrow('Query read timeout');
      // Given back as TypeORM gives it back after a failed statement: without an error.
      client.release();
      // The next user gets a new connection (the stall holds only the old one), outside any transaction;
      // before, it got the old one, its statements queued behind the unanswered one.
      const next = await pool.connect();
      try {
        const { rows: now } = await next.query<{ pid: number; in_transaction: boolean }>('SELECT pg_backend_pid() AS pid, now() <> statement_timestamp() AS in_transaction');
        expect(now).toEqual([{ pid: expect.any(Number), in_transaction: false }]);
        expect(now[0].pid).not.toBe(rows[0].pid);
      } finally {
        next.release();
      }
    } finally {
      proxy.down();
      proxy.up();
      await pool.end();
    }
  });

  it('bounds the pool’s own queries (answered through a callback) alike, and answers each once', async () => {
    const database = new URL(process.env.DATABASE_URL!);
    database.host = `127.0.0.1:${proxy.port}`;
    const pool = new pg.Pool({ connectionString: database.toString(), max: 1, query_timeout: 500, Client: DroppingClient });
    try {
      const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      proxy.stall();
      const answers: unknown[] = [];
      const started = Date.now();
      await new Promise<void>((resolve) =>
        pool.query('SELECT 2', (error: Error | undefined) => {
          answers.push(error?.message);
          resolve();
        }),
      );
      expect(answers).toEqual(['Query read timeout']);
      expect(Date.now() - started).toBeGreaterThanOrEqual(450);
      proxy.down();
      proxy.up();
      const { rows: now } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      expect(now[0].pid).not.toBe(rows[0].pid);
      // The cut connection's late "Connection terminated" reached no one a second time.
      expect(answers).toEqual(['Query read timeout']);
    } finally {
      proxy.down();
      proxy.up();
      await pool.end();
    }
  });

  it('leaves no timer behind for a query node-postgres refuses at once, which would close the connection later', async () => {
    const client = new DroppingClient({ connectionString: process.env.DATABASE_URL, query_timeout: 500 });
    await client.connect();
    const timers = jest.spyOn(globalThis, 'setTimeout');
    try {
      await expect(client.query(null as unknown as string)).rejects.toThrow(TypeError);
      expect(timers).not.toHaveBeenCalled();
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      timers.mockRestore();
      await client.end();
    }
  });

  it('keeps query_timeout from node-postgres, whose own timer assigns each query a new callback once made', () => {
    // That assignment kept the rows of answered queries alive through young collections
    // (docs/benchmarks.md, "The twenty-fifth session"); the client bounds its queries itself.
    const client = new DroppingClient({ connectionString: process.env.DATABASE_URL, query_timeout: 500 });
    expect((client as unknown as { connectionParameters: { query_timeout?: number } }).connectionParameters.query_timeout).toBeFalsy();
  });
});

/**
 * A migration that fails (here: a role without the right to create the migrations table) ends
 * the start with its error, and releases the migration lock every other process's start waits on.
 */
describe('a migration that fails (e2e)', () => {
  const suffix = `${process.pid}_${Date.now()}`;
  const database = `integrations_test_migfail_${suffix}`;
  const role = `migfail_${suffix}`;
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  const urlOf = (user: string) => {
    const url = new URL(process.env.DATABASE_URL!);
    url.username = user;
    url.pathname = `/${database}`;
    return url.toString();
  };

  beforeAll(async () => {
    await admin.connect();
    // The admin's password, for a server that asks one over TCP.
    const password = new URL(process.env.DATABASE_URL!).password;
    await admin.query(`CREATE ROLE ${role} LOGIN${password ? ` PASSWORD '${decodeURIComponent(password).replace(/'/g, "''")}'` : ''}`);
    await admin.query(`CREATE DATABASE ${database}`);
    // Only the database's owner creates tables in its public schema (PostgreSQL 15's default, stated for older servers).
    const owner = new pg.Client({ connectionString: urlOf(new URL(process.env.DATABASE_URL!).username) });
    await owner.connect();
    await owner.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
    await owner.end();
  });
  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  it('rejects with the database error instead of waiting for ever, and leaves the lock free for the next start', async () => {
    // Before: the unlock waited for the one connection TypeORM kept, and this never settled.
    await expect(migrate(urlOf(role))).rejects.toThrow(/permission denied/);
    expect((await migrate(urlOf(new URL(process.env.DATABASE_URL!).username))).length).toBeGreaterThan(0);
  });
});
