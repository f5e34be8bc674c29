import { request as httpRequest } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { Express } from 'express';
import type { Test } from 'supertest';
import { ApiKeysService } from '../src/platform/auth/api-keys.service.js';
import { givesBackTurn } from '../src/platform/auth/turn-ending.js';
import { Metrics } from '../src/platform/metrics/metrics.service.js';
import { Scope } from '../src/platform/catalog/scopes.js';
import { createFinanceFixture, type FinanceFixture } from './support/finance.js';
import { runCli } from './support/cli.js';
import { credentials, shortcut, startMcp, type TestMcp } from './support/mcp.js';
import { startApi, type TestApi } from './support/api.js';
import { onOwnDatabase } from './support/deliveries.js';
import { createTenantSession, type TenantSession } from './support/tenant-session.js';
import { waitFor } from './support/wait-for.js';

/** A layer of express's router, as far as these tests read it. */
interface RouterLayer {
  route?: { path: string; stack: { handle: unknown }[] };
}

/** What `seed:demo` prints that these tests use. */
interface Demo {
  tenant: { id: string; slug: string };
  user: { id: string };
  mcp_token: string;
}

/**
 * Sessions waiting, directly or behind another waiter (requests for one row queue on each other),
 * on a lock `holder` holds, as `observer` sees them (`also`: a further condition on them). Another
 * test file's waits, in the run's database at the same time, are not counted.
 */
async function waitingOn(observer: pg.Client, holder: pg.Client, also = ''): Promise<number> {
  const [{ pid }] = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
  const waiting = await observer.query<{ n: number }>(
    `WITH RECURSIVE behind(pid) AS (
       SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))
       UNION SELECT a.pid FROM pg_stat_activity a JOIN behind b ON b.pid = ANY(pg_blocking_pids(a.pid)))
     SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid IN (SELECT pid FROM behind)${also}`,
    [pid],
  );
  return waiting.rows[0].n;
}

// It locks `invoices`: on the run's shared database that held other files' invoice writes up.
onOwnDatabase('tenant_share');

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

  const waitingOnLocks = () => waitingOn(watcher, locker);

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

  it('gives back every turn however its handler ended: answered, refused by a pipe, by the handler, or by a missing record', async () => {
    const created = await api.http.post('/v1/invoices').set('Authorization', attacker.auth).send(fin.invoiceBody());
    const missing = '00000000-0000-4000-8000-000000000000';
    const ends: [() => Test, number][] = [
      [() => api.http.get('/v1/invoices?limit=1').set('Authorization', attacker.auth), 200],
      [() => api.http.get('/v1/invoices?limit=abc').set('Authorization', attacker.auth), 422],
      [() => api.http.get(`/v1/invoices/${missing}`).set('Authorization', attacker.auth), 404],
      [() => api.http.patch(`/v1/invoices/${created.body.id}`).set('Authorization', attacker.auth).send({ notes: 7 }), 422],
      [() => api.http.post(`/v1/invoices/${missing}/void`).set('Authorization', attacker.auth), 404],
    ];
    // More of each, one after another, than the company has turns (4): one not given back would leave the next waiting, then refused 503.
    for (const [send, status] of ends) {
      for (let n = 0; n < 5; n += 1) expect((await send()).status).toBe(status);
    }
  });

  it('registers every route of the API with its turn given back', () => {
    const routes = ((api.app.getHttpAdapter().getInstance() as Express).router.stack as RouterLayer[]).filter((layer) => layer.route);
    expect(routes.length).toBeGreaterThan(40);
    for (const { route } of routes) expect({ path: route!.path, handlers: route!.stack.map(({ handle }) => givesBackTurn(handle)) }).toEqual({ path: route!.path, handlers: [true] });
  });

  it('keeps the turns of requests whose clients left until their handlers are done: leaving frees no connection', async () => {
    const created = await api.http.post('/v1/invoices').set('Authorization', attacker.auth).send(fin.invoiceBody());
    const { port } = api.app.getHttpServer().address() as AddressInfo;
    await locker.query('BEGIN');
    await locker.query('SELECT id FROM invoices WHERE id = $1 FOR UPDATE', [created.body.id]);
    try {
      const requests = Array.from({ length: 12 }, (_, n) => {
        const body = JSON.stringify({ notes: `gone ${n}` });
        const req = httpRequest({ host: '127.0.0.1', port, method: 'PATCH', path: `/v1/invoices/${created.body.id}`, headers: { Authorization: attacker.auth, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } });
        req.on('error', () => undefined);
        req.end(body);
        return req;
      });
      await waitFor(async () => (await waitingOnLocks()) === 4, 10_000, "the attacker's share waiting on the lock");
      // Every client gives up (a short client timeout); the server sees each leave.
      const gone = async () => Number(/http_request_duration_seconds_count\{method="PATCH",route="\/v1\/invoices\/:id",status="499"\} (\d+)/.exec(await api.app.get(Metrics).registry.metrics())?.[1] ?? 0);
      const goneBefore = await gone();
      for (const req of requests) req.destroy();
      await waitFor(async () => (await gone()) - goneBefore === 12, 10_000, 'the server seeing the twelve clients leave');
      const read = await api.http.get('/v1/invoices?limit=1').set('Authorization', victim.auth);
      expect(read.status).toBe(200);
      expect(await waitingOnLocks()).toBe(4);
    } finally {
      await locker.query('ROLLBACK');
    }
  });

  it('drops a pipelined request whose connection closed while it waited for a turn, and logs it as 499: its response, queued behind another, never closes', async () => {
    const [locked, other] = await Promise.all([0, 1].map(() => api.http.post('/v1/invoices').set('Authorization', attacker.auth).send(fin.invoiceBody())));
    const { port } = api.app.getHttpServer().address() as AddressInfo;
    const gone = async () => Number(/http_request_duration_seconds_count\{method="PATCH",route="\/v1\/invoices\/:id",status="499"\} (\d+)/.exec(await api.app.get(Metrics).registry.metrics())?.[1] ?? 0);
    const goneBefore = await gone();
    // The second pipelined request's invoice is locked too, so that its handler, if it ran, would be seen waiting.
    const otherLocker = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await otherLocker.connect();
    try {
      await otherLocker.query('BEGIN');
      await otherLocker.query('SELECT id FROM invoices WHERE id = $1 FOR UPDATE', [other.body.id]);
      await locker.query('BEGIN');
      await locker.query('SELECT id FROM invoices WHERE id = $1 FOR UPDATE', [locked.body.id]);
      let waiting: Promise<unknown>[] = [];
      try {
        waiting = Array.from({ length: 3 }, (_, n) => api.http.patch(`/v1/invoices/${locked.body.id}`).set('Authorization', attacker.auth).send({ notes: `held ${n}` }).then((res) => res));
        await waitFor(async () => (await waitingOnLocks()) === 3, 10_000, 'three of the four turns waiting on the lock');
        // Two requests in one write: the first takes the last turn and waits on the lock, the second waits for a turn.
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        const patch = (id: string, notes: string) => {
          const body = JSON.stringify({ notes });
          return `PATCH /v1/invoices/${id} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${attacker.auth}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
        };
        socket.write(patch(locked.body.id, 'pipelined first') + patch(other.body.id, 'pipelined second'));
        await waitFor(async () => (await waitingOnLocks()) === 4, 10_000, 'the first pipelined request waiting on the lock');
        socket.destroy();
        // Both logged as the client leaving when the connection closes, the second although its response never does.
        await waitFor(async () => (await gone()) - goneBefore === 2, 10_000, 'both pipelined requests logged as 499');
      } finally {
        await locker.query('ROLLBACK');
      }
      // The four ending hand the waiting request its turn before they answer.
      await Promise.all(waiting);
      const read = await api.http.get(`/v1/invoices/${other.body.id}`).set('Authorization', attacker.auth);
      expect(read.status).toBe(200);
      expect(await waitingOnLocks()).toBe(0);
    } finally {
      await otherLocker.query('ROLLBACK');
      await otherLocker.end();
    }
    const after = await api.http.get(`/v1/invoices/${other.body.id}`).set('Authorization', attacker.auth);
    expect(after.body.notes).toBe(other.body.notes);
  });
  it('reads a key again when it was revoked while its request waited for a turn: the request is refused, nothing is written', async () => {
    const company = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesWrite] });
    const fixture = await createFinanceFixture(api.app, company.tenant.id);
    const created = await api.http.post('/v1/invoices').set('Authorization', company.auth).send(fixture.invoiceBody());
    const queued = await company.newKey([Scope.FinInvoicesWrite]);
    const redis = new Redis(process.env.REDIS_URL!);
    await locker.query('BEGIN');
    await locker.query('SELECT id FROM invoices WHERE id = $1 FOR UPDATE', [created.body.id]);
    let patches: Promise<{ status: number }[]> | undefined;
    let posts: Promise<{ status: number; body: { detail_key?: string } }[]> | undefined;
    try {
      patches = Promise.all(
        Array.from({ length: 4 }, (_, n) => api.http.patch(`/v1/invoices/${created.body.id}`).set('Authorization', company.auth).send({ notes: `n${n}` }).then((res) => res)),
      );
      await waitFor(async () => (await waitingOnLocks()) === 4, 10_000, "the company's four turns waiting on the lock");
      posts = Promise.all(Array.from({ length: 2 }, () => api.http.post('/v1/invoices').set('Authorization', queued.auth).send(fixture.invoiceBody()).then((res) => res)));
      // Counted by the rate limit: authenticated, and waiting for a turn.
      const prefix = queued.key.split('_')[2];
      await waitFor(async () => (await redis.keys(`${process.env.REDIS_PREFIX}:ratelimit:default:${prefix}:*`)).length > 0, 10_000, 'the queued requests counted');
      await api.app.get(ApiKeysService).changeState(queued.id, 'revoked');
    } finally {
      await locker.query('ROLLBACK');
      redis.disconnect();
    }
    expect((await patches!).map((res) => res.status)).toEqual(Array(4).fill(200));
    // Before: both ran once a turn came, seconds after the revocation had returned, and created invoices.
    const answers = await posts!;
    expect(answers.map((res) => [res.status, res.body.detail_key])).toEqual(Array(2).fill([401, 'errors.integrations.unauthenticated']));
    const invoices = await watcher.query('SELECT count(*)::int AS n FROM invoices WHERE tenant_id = $1', [company.tenant.id]);
    expect(invoices.rows[0].n).toBe(1);
  });
});

// In this file, not beside the agent-tool server's other tests: both hold locks on invoices and
// count the requests waiting on them, which a file running at the same time would disturb.
describe("agent-tool server: one company's calls take a bounded share of the pool (e2e)", () => {
  let mcp: TestMcp;
  let busy: Demo;
  let other: Demo;
  let db: pg.Client;

  beforeAll(async () => {
    busy = (await runCli('seed:demo', '--records', '1')).json as unknown as Demo;
    other = (await runCli('seed:demo', '--records', '1')).json as unknown as Demo;
    mcp = await startMcp();
    db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
  });
  afterAll(async () => {
    await mcp?.close();
    await db?.end();
  });

  it("serves another company while ten of one company's searches wait, each search holding its turn, not the pool", async () => {
    const call = (demo: Demo, name: string, args: Record<string, unknown>) =>
      shortcut(mcp.base, '/tools/call', credentials(demo.mcp_token, demo.tenant.slug), { name, arguments: args });
    const waitingOnInvoices = () => waitingOn(db, lock, ` AND query ILIKE '%FROM "invoices"%'`);
    // Every search of the busy company reaches invoices, and waits there while the test holds them.
    const lock = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await lock.connect();
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE invoices IN ACCESS EXCLUSIVE MODE');
    let searches: Promise<Awaited<ReturnType<typeof call>>[]> | undefined;
    try {
      searches = Promise.all(Array.from({ length: 10 }, () => call(busy, 'search_records', { query: 'demo' })));
      await waitFor(async () => (await waitingOnInvoices()) > 0, 10_000, 'the searches to wait on invoices');

      // Before: the ten searches took all ten connections, and this call waited 10 s for one, then failed.
      const answer = await call(other, 'list_records', { resource: 'vehicles' });
      expect(answer.status).toBe(200);
      expect(answer.body!.isError).toBeUndefined();
      expect(await waitingOnInvoices()).toBeLessThanOrEqual(2);
    } finally {
      await lock.query('COMMIT');
      await lock.end();
    }
    for (const answer of await searches) expect([answer.status, answer.body!.isError]).toEqual([200, undefined]);
  }, 60_000);

  it('reads a token again when its call waited for a turn: one revoked meanwhile is not served', async () => {
    const revoked = (await runCli('mcp-token:create', '--tenant', busy.tenant.id, '--user', busy.user.id, '--tools', '*')).json as { id: string; token: string };
    const call = (token: string) => shortcut(mcp.base, '/tools/call', credentials(token, busy.tenant.slug), { name: 'list_records', arguments: { resource: 'invoices' } });
    const redis = new Redis(process.env.REDIS_URL!);
    const lock = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await lock.connect();
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE invoices IN ACCESS EXCLUSIVE MODE');
    let holding: Promise<Awaited<ReturnType<typeof call>>[]> | undefined;
    let queued: ReturnType<typeof call> | undefined;
    try {
      // The company's two turns wait on the lock; the revoked token's call waits for a turn.
      holding = Promise.all([call(busy.mcp_token), call(busy.mcp_token)]);
      await waitFor(async () => (await waitingOn(db, lock)) === 2, 10_000, 'both turns on the lock');
      queued = call(revoked.token);
      // Counted, so authenticated: before its revocation.
      await waitFor(async () => (await redis.keys(`${process.env.REDIS_PREFIX}:ratelimit:mcp:${revoked.id}:*`)).length > 0, 10_000, 'the queued call counted');
      expect((await runCli('mcp-token:revoke', '--token', revoked.id)).code).toBe(0);
    } finally {
      await lock.query('COMMIT');
      await lock.end();
      redis.disconnect();
    }
    for (const answer of await holding!) expect([answer.status, answer.body!.isError]).toEqual([200, undefined]);
    // Before: served, the company's invoices answered to a token revoked seconds before.
    const answer = await queued!;
    expect(answer.status).toBe(200);
    expect(answer.body!.isError).toBe(true);
    expect(JSON.stringify(answer.body)).toContain('revoked');
  }, 60_000);
});
