import { Redis } from 'ioredis';
import type { Response } from 'supertest';
import { Scope } from '../src/platform/catalog/scopes.js';
import { RateLimiterService } from '../src/platform/rate-limit/rate-limiter.service.js';
import { startApi, type TestApi } from './support/api.js';
import { openRedisMonitor } from './support/redis-monitor.js';
import { createTenantSession, type TenantSession } from './support/tenant-session.js';
import { TestResourcesModule } from './support/test-resources.module.js';
import { waitFor } from './support/wait-for.js';

/**
 * Pins the rate limiter's clock of `api` at `ms` (and returns a setter to move it): requests then
 * fall in one known window however long they take, and a test moves to the next window without
 * waiting for it.
 */
function pinClock(api: TestApi, ms: number): (next: number) => void {
  let now = ms;
  api.app.get(RateLimiterService).clock.now = () => now;
  return (next) => (now = next);
}

/** 10:15:15.250 UTC: 0.25 s into a second, 15.25 s into a minute, 15 min 15.25 s into an hour. */
const T0 = Date.UTC(2026, 4, 16, 10, 15, 15, 250);

const expectRateLimited = (res: Response) => {
  expect(res.status).toBe(429);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({
    status: 429,
    detail_key: 'errors.platform.rate_limit.exceeded',
    type: 'https://api.test.local/errors/rate-limited',
  });
  expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
};

describe('general rate limit per API key (e2e)', () => {
  let api: TestApi;
  let session: TenantSession;

  beforeAll(async () => {
    api = await startApi({ modules: [TestResourcesModule], env: { RATE_LIMIT_PER_SECOND: '3', TENANT_RATE_LIMIT_PER_SECOND: '10' } });
  });
  afterAll(() => api.close());
  let setClock: (ms: number) => void;
  beforeEach(async () => {
    session = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesWrite] });
    setClock = pinClock(api, T0);
  });

  const list = (auth = session.auth) => api.http.get('/v1/test_events').set('Authorization', auth);

  it('sends RateLimit-Policy and RateLimit on an authenticated answer', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-policy']).toBe('"default";q=3;w=1, "company";q=10;w=1');
    expect(res.headers.ratelimit).toBe('"default";r=2;t=1, "company";r=9;t=1');
  });

  it('answers 429 with Retry-After beyond the limit, and serves the key again after it', async () => {
    const burst = await Promise.all(Array.from({ length: 6 }, () => list()));
    expect(burst.map((res) => res.status).sort()).toEqual([200, 200, 200, 429, 429, 429]);
    const refused = burst.find((res) => res.status === 429)!;
    expectRateLimited(refused);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['ratelimit-policy']).toBe('"default";q=3;w=1, "company";q=10;w=1');
    expect(refused.headers.ratelimit).toBe('"default";r=0;t=1');
    expect(refused.body.detail).toMatch(/^This API key exceeded the limit "default" of 3 requests per 1 s/);

    setClock(T0 + 749);
    expectRateLimited(await list());
    setClock(T0 + 750);
    const next = await list();
    expect(next.status).toBe(200);
    expect(next.headers.ratelimit).toBe('"default";r=2;t=1, "company";r=9;t=1');
  });

  it('counts each API key on its own', async () => {
    await Promise.all(Array.from({ length: 3 }, () => list()));
    expectRateLimited(await list());
    const other = await session.newKey([Scope.FinInvoicesRead]);
    expect((await list(other.auth)).status).toBe(200);
  });

  it("counts a company's keys together too: more keys buy it no more than TENANT_RATE_LIMIT_PER_SECOND", async () => {
    const keys = [session.auth];
    for (let more = 0; more < 3; more += 1) keys.push((await session.newKey([Scope.FinInvoicesRead])).auth);
    const served = [];
    // Three rounds over four keys: each key stays within its 3, the company passes its 10.
    for (const auth of [...keys, ...keys, ...keys]) served.push(await list(auth));
    expect(served.map((res) => res.status)).toEqual([...Array(10).fill(200), 429, 429]);
    const refused = served[10];
    expectRateLimited(refused);
    expect(refused.headers.ratelimit).toBe('"default";r=0;t=1, "company";r=0;t=1');
    expect(refused.body.detail).toMatch(/^This API key's company \(all its keys together\) exceeded the limit "company" of 10 requests per 1 s/);
    // A key past its own limit spends none of its company's allowance, however many of its requests arrive at once.
    setClock(T0 + 1000);
    const [beside, ...hammered] = await Promise.all([list(keys[1]), ...Array.from({ length: 40 }, () => list(keys[0]))]);
    expect(hammered.filter((res) => res.status === 200)).toHaveLength(3);
    expect(beside.status).toBe(200);
    expect((await list(keys[1])).headers.ratelimit).toBe('"default";r=1;t=1, "company";r=5;t=1');
    // Another company is counted on its own.
    const other = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesRead] });
    expect((await list(other.auth)).status).toBe(200);
  });

  it("counts a cached key's windows and its company's in one Redis call, and a missing scope in none", async () => {
    expect((await list()).status).toBe(200);
    const readOnly = await session.newKey([Scope.FinInvoicesRead]);
    expect((await api.http.get('/v1/test_events').set('Authorization', readOnly.auth)).status).toBe(200);
    const counters = `${api.config.REDIS_PREFIX}:ratelimit:`;
    const monitor = await openRedisMonitor(api.config.REDIS_URL);
    const calls: string[][] = [];
    // This company's calls (the run's other files share the prefix), and the marker; what a
    // script runs is shown too, from the source "lua".
    const ours = [session.tenant.id, session.key.split('_')[2], readOnly.key.split('_')[2], 'marker'];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua' && args.some((arg) => arg.startsWith(counters) && ours.some((name) => arg.includes(`:${name}`)))) calls.push(args);
    });
    try {
      // Both keys are cached now: a request's counting is one call, with the key's window and the company's.
      expect((await list()).status).toBe(200);
      expect((await api.http.post('/v1/test_events').set('Authorization', readOnly.auth).send({})).status).toBe(403);
      // MONITOR shows commands in the order Redis ran them: once the marker is seen, so is every call before it.
      const marker = new Redis(api.config.REDIS_URL);
      await marker.exists(`${counters}marker`);
      marker.disconnect();
      await waitFor(async () => calls.some((args) => args.includes(`${counters}marker`)), 5_000, 'the marker');
      const counted = calls.filter((args) => !args.includes(`${counters}marker`));
      expect(counted).toHaveLength(1);
      expect(counted[0].filter((arg) => arg.startsWith(counters))).toEqual([
        expect.stringMatching(new RegExp(`^${counters}default:${session.key.split('_')[2]}:\\d+$`)),
        expect.stringMatching(new RegExp(`^${counters}company:${session.tenant.id}:\\d+$`)),
      ]);
    } finally {
      monitor.disconnect();
    }
  });

  it('counts in this process when the one-round-trip count fails, without asking Redis again', async () => {
    expect((await list()).status).toBe(200);
    const redis = new Redis(api.config.REDIS_URL);
    const counters = `${api.config.REDIS_PREFIX}:ratelimit:`;
    const second = Math.floor(T0 / 1000);
    try {
      // The company's counter holds no number: the script fails at it, after counting the key's window.
      await redis.set(`${counters}company:${session.tenant.id}:${second}`, 'not a number', 'EX', 60);
      const res = await list();
      expect(res.status).toBe(200);
      expect(res.headers.ratelimit).toBe('"default";r=2;t=1, "company";r=9;t=1');
      // Before: asked again through rate-limiter-flexible, Redis counted the key a third time (r=0).
      expect(await redis.get(`${counters}default:${session.key.split('_')[2]}:${second}`)).toBe('2');
    } finally {
      redis.disconnect();
    }
  });

  it('counts POSTs too, before the request runs', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 5 }, async () => (await api.http.post('/v1/test_events').set('Authorization', session.auth).send({})).status),
    );
    expect(statuses.sort()).toEqual([201, 201, 201, 429, 429]);
  });

  it('does not count routes without an API key', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => api.http.get('/v1/test_rate_limits/public')));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(answers[0].headers['ratelimit-policy']).toBeUndefined();
  });
});

describe('named rate limits (e2e)', () => {
  let api: TestApi;
  let redis: Redis;

  beforeAll(async () => {
    api = await startApi({ modules: [TestResourcesModule] });
    redis = new Redis(api.config.REDIS_URL);
  });
  beforeEach(() => pinClock(api, T0));
  afterAll(async () => {
    redis.disconnect();
    await api.close();
  });

  it('allows 60 single replays per minute per key', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.WebhooksManage] });
    let last: Response | undefined;
    for (let i = 0; i < 60; i += 1) {
      last = await api.http.get('/v1/test_rate_limits/replay').set('Authorization', session.auth);
      expect(last.status).toBe(200);
    }
    expect(last!.headers['ratelimit-policy']).toBe('"default";q=100;w=1, "webhook_replay";q=60;w=60, "company";q=300;w=1');
    // All 61 requests fall in the minute window that the clock entered 15.25 s ago.
    expect(last!.headers.ratelimit).toMatch(/^"default";r=\d+;t=1, "webhook_replay";r=0;t=45, "company";r=\d+;t=1$/);

    const refused = await api.http.get('/v1/test_rate_limits/replay').set('Authorization', session.auth);
    expectRateLimited(refused);
    expect(refused.headers['retry-after']).toBe('45');
    expect(refused.headers.ratelimit).toMatch(/"webhook_replay";r=0;t=45$/);
    expect(refused.body.detail).toMatch(/"webhook_replay" of 60 requests per 60 s/);

    const otherKey = await session.newKey([Scope.WebhooksManage]);
    expect((await api.http.get('/v1/test_rate_limits/replay').set('Authorization', otherKey.auth)).status).toBe(200);
  });

  it('allows 5 replay_failed calls per minute', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.WebhooksManage] });
    const call = () => api.http.get('/v1/test_rate_limits/replay_failed').set('Authorization', session.auth);
    let last: Response | undefined;
    for (let i = 0; i < 5; i += 1) {
      last = await call();
      expect(last.status).toBe(200);
    }
    expect(last!.headers['ratelimit-policy']).toBe(
      '"default";q=100;w=1, "webhook_replay_failed";q=5;w=60, "webhook_replay_failed_hourly";q=30;w=3600, "company";q=300;w=1',
    );
    expect(last!.headers.ratelimit).toMatch(/"webhook_replay_failed";r=0;t=45, "webhook_replay_failed_hourly";r=25;t=2685, "company";r=\d+;t=1$/);

    const refused = await call();
    expectRateLimited(refused);
    expect(refused.headers['retry-after']).toBe('45');
    // A call refused by the minute window does not use up the hour.
    expect(refused.headers.ratelimit).toMatch(/"webhook_replay_failed";r=0;t=\d+$/);
  });

  it('allows 30 replay_failed calls per hour', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.WebhooksManage] });
    // As if the key had made its 30 calls of the hour already (at 5 a minute, over the last 6 minutes).
    const hour = Math.floor(T0 / 3_600_000);
    await redis.set(`${api.config.REDIS_PREFIX}:ratelimit:webhook_replay_failed_hourly:${session.key.split('_')[2]}:${hour}`, '30', 'EX', 3600);

    const refused = await api.http.get('/v1/test_rate_limits/replay_failed').set('Authorization', session.auth);
    expectRateLimited(refused);
    // The hour window the clock is in ends in 44 min 44.75 s.
    expect(refused.headers['retry-after']).toBe('2685');
    expect(refused.headers.ratelimit).toMatch(/"webhook_replay_failed";r=4;t=\d+, "webhook_replay_failed_hourly";r=0;t=\d+$/);
    expect(refused.body.detail).toMatch(/"webhook_replay_failed_hourly" of 30 requests per 3600 s/);
  });
});

describe('rate limits while Redis is unreachable (e2e)', () => {
  let api: TestApi;

  beforeAll(async () => {
    // Port 1: nothing listens, every connection attempt is refused.
    api = await startApi({ modules: [TestResourcesModule], env: { REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_PER_SECOND: '2' } });
  });
  afterAll(() => api.close());

  it('fails open to a per-process limit: requests are served and still limited, never a 5xx', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesRead] });
    pinClock(api, T0);
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push(await api.http.get('/v1/test_events').set('Authorization', session.auth));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 429]);
    expect(answers[0].headers['ratelimit-policy']).toBe('"default";q=2;w=1, "company";q=300;w=1');
    expectRateLimited(answers[2]);
  });
});
