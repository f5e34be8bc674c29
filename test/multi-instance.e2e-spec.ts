import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { Scope } from '../src/platform/catalog/scopes.js';
import { startApi, type TestApi } from './support/api.js';
import { inOneWindow } from './support/rate-limit-clock.js';
import { createTenantSession } from './support/tenant-session.js';
import { TestResourcesModule } from './support/test-resources.module.js';

/**
 * Two API instances, as two processes behind a load balancer would be: separate Nest
 * applications, HTTP servers, connection pools and Redis clients, sharing only PostgreSQL and
 * Redis. Nothing that must hold across processes may live in one instance's memory.
 */
describe('two API instances on one database and Redis (e2e)', () => {
  let instances: [TestApi, TestApi];
  let db: DataSource;

  beforeAll(async () => {
    instances = [await startApi({ modules: [TestResourcesModule] }), await startApi({ modules: [TestResourcesModule] })];
    db = instances[0].app.get(DataSource);
  });
  afterAll(() => Promise.all(instances.map((api) => api.close())));

  const spread = <T>(count: number, send: (api: TestApi, index: number) => Promise<T>): Promise<T[]> =>
    Promise.all(Array.from({ length: count }, (_, index) => send(instances[index % 2], index)));

  it('runs a request once when repeats of one Idempotency-Key arrive concurrently at both', async () => {
    const session = await createTenantSession(instances[0].app, { scopes: [Scope.FinInvoicesWrite] });
    const key = randomUUID();
    const send = (api: TestApi, query = '') =>
      api.http.post(`/v1/test_events${query}`).set('Authorization', session.auth).set('Idempotency-Key', key).send({ order: 42, lines: [1, 2] });

    // The one execution is held for 300 ms, so the concurrent repeats meet it in progress.
    const during = await spread(8, (api) => send(api, '?delay_ms=300'));
    const executed = during.filter((res) => res.status === 201 && res.headers['idempotency-replayed'] === undefined);
    const replayed = during.filter((res) => res.headers['idempotency-replayed'] === 'true');
    const inProgress = during.filter((res) => res.status === 409);
    expect(executed).toHaveLength(1);
    expect(replayed.length + inProgress.length).toBe(7);
    expect(inProgress.length).toBeGreaterThan(0);
    for (const res of inProgress) {
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 409, detail_key: 'errors.platform.idempotency.in_progress' });
    }
    const expectReplay = (res: Response) => {
      expect(res.status).toBe(201);
      expect(res.headers['idempotency-replayed']).toBe('true');
      expect(res.text).toBe(executed[0].text);
      expect(res.headers.location).toBe(executed[0].headers.location);
    };
    replayed.forEach(expectReplay);

    // Once it has finished, every repeat at either instance is a replay (the same request: its query too).
    const after = await spread(4, (api) => send(api, '?delay_ms=300'));
    after.forEach(expectReplay);

    const [{ events }] = await db.query('SELECT count(*)::int AS events FROM events WHERE tenant_id = $1', [session.tenant.id]);
    expect(events).toBe(1);
    const rows: { state: string; response_status: number }[] = await db.query(
      'SELECT state, response_status FROM idempotency_keys WHERE tenant_id = $1',
      [session.tenant.id],
    );
    expect(rows).toEqual([{ state: 'completed', response_status: 201 }]);
  });

  // The shared counters are shown on the 60-per-minute replay limit, with both instances' limiter
  // clocks stopped in one minute: the counts are exact however slow the machine. (Running, the
  // clocks once carried a burst across a minute's turn, and all 70 requests were served.)
  const replay = (api: TestApi, auth: string) => api.http.get('/v1/test_rate_limits/replay').set('Authorization', auth);
  const inOneMinute = <T>(body: () => Promise<T>) => inOneWindow(instances.map((api) => api.app), Date.UTC(2026, 4, 16, 10, 15, 15, 250), body);

  it('counts one API key against one shared limit at both instances', async () => {
    const session = await createTenantSession(instances[0].app, { scopes: [Scope.WebhooksManage] });
    // Taking turns, each instance sees the requests the other one counted.
    const remaining: string[] = [];
    await inOneMinute(async () => {
      for (let i = 0; i < 6; i += 1) remaining.push(/"webhook_replay";r=(\d+)/.exec((await replay(instances[i % 2], session.auth)).headers.ratelimit)![1]);
    });
    expect(remaining).toEqual(['59', '58', '57', '56', '55', '54']);
  });

  it('refuses requests beyond the shared limit, whichever instance they reach', async () => {
    const session = await createTenantSession(instances[0].app, { scopes: [Scope.WebhooksManage] });
    const answers = await inOneMinute(() => spread(70, (api) => replay(api, session.auth)));
    // Counting per instance would have let all 70 through (35 per instance, under 60 each).
    expect(answers.filter((res) => res.status === 200)).toHaveLength(60);
    const refused = answers.filter((res) => res.status === 429);
    expect(refused).toHaveLength(10);
    for (const res of refused) {
      expect(res.body.detail_key).toBe('errors.platform.rate_limit.exceeded');
      expect(res.headers.ratelimit).toMatch(/"webhook_replay";r=0;t=\d+$/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    }
  });
});
