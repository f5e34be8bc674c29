import { request as httpRequest } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { ApiKeysService } from '../src/platform/auth/api-keys.service.js';
import { Metrics } from '../src/platform/metrics/metrics.service.js';
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
