import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { Scope } from '../src/platform/catalog/scopes.js';
import { JobQueue } from '../src/platform/queue/job-queue.service.js';
import { JobName } from '../src/platform/queue/queue.types.js';
import { startApi, type TestApi } from './support/api.js';
import { isolatedDatabase } from './support/deliveries.js';
import { listeningPort, type MainProcess, spawnMain } from './support/main-process.js';
import { inOneWindow } from './support/rate-limit-clock.js';
import { tcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { createTenantSession } from './support/tenant-session.js';
import { TestResourcesModule } from './support/test-resources.module.js';
import { waitFor } from './support/wait-for.js';

/** The value of one sample line of a Prometheus text exposition (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  const line = text
    .split('\n')
    .find((entry) => (entry.startsWith(`${name}{`) || entry.startsWith(`${name} `)) && wanted.every((pair) => entry.includes(pair)));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

// The registry is per process (shared by every application a test file starts), so the
// counters are compared before and after.
describe('Prometheus metrics on GET /metrics of the API port (e2e)', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi({ modules: [TestResourcesModule], env: { RATE_LIMIT_PER_SECOND: '3' } });
  });
  afterAll(() => api.close());

  it('exports request durations by route and status, rate-limit refusals, idempotency replays, queue depths and process metrics', async () => {
    const before = (await api.http.get('/metrics')).text;
    const session = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesWrite] });
    expect((await api.http.get('/v1/test_events').set('Authorization', session.auth)).status).toBe(200);
    expect((await api.http.get(`/v1/test_events/${randomUUID()}`).set('Authorization', session.auth)).status).toBe(404);

    const replayer = await session.newKey([Scope.FinInvoicesWrite]);
    const key = randomUUID();
    for (let i = 0; i < 2; i += 1) await api.http.post('/v1/test_events').set('Authorization', replayer.auth).set('Idempotency-Key', key).send({ a: 1 });

    // Five at once against a limit of three per second, all in one window of the limiter's clock
    // (on a slow machine they could straddle a second's turn): two refused.
    const limited = await session.newKey([Scope.FinInvoicesWrite]);
    const burst = await inOneWindow(api.app, Date.UTC(2026, 4, 16, 10, 15, 15, 250), () =>
      Promise.all(Array.from({ length: 5 }, () => api.http.get('/v1/test_events').set('Authorization', limited.auth))),
    );
    const refused = burst.filter((res) => res.status === 429).length;
    expect(refused).toBe(2);

    const res = await api.http.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const after = res.text;
    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('http_request_duration_seconds_count', { method: 'GET', route: '/v1/test_events', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(delta('http_request_duration_seconds_count', { method: 'GET', route: '/v1/test_events/:id', status: '404' })).toBe(1);
    expect(delta('http_request_duration_seconds_bucket', { route: '/v1/test_events/:id', status: '404', le: '+Inf' })).toBe(1);
    expect(delta('rate_limit_refusals_total', { limit: 'default' })).toBe(refused);
    expect(delta('idempotency_replays_total')).toBe(1);
    expect(after).toMatch(/^queue_jobs\{queue="maintenance",state="waiting"\} \d+$/m);
    expect(after).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(after).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });
});

describe('metrics on METRICS_PORT (e2e, dist/main.js with the api and worker roles)', () => {
  // A Redis prefix of its own: only this process's worker takes the job counted here. A database
  // of its own: its worker would relay and sweep other files' events.
  const env: Record<string, string> = { REDIS_PREFIX: `${process.env.REDIS_PREFIX}-metrics`, METRICS_PORT: '0' };
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let api: TestApi;
  let main: MainProcess;
  let apiPort: number;
  let metricsUrl: string;
  let redis: TcpProxy;

  beforeAll(async () => {
    database = await isolatedDatabase('metrics');
    env.DATABASE_URL = database.url;
    api = await startApi({ env });
    const redisUrl = new URL(process.env.REDIS_URL!);
    redis = await tcpProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
    redis.up();
    main = spawnMain({ ...env, APP_ROLES: 'api,worker', PORT: '0', REDIS_URL: `redis://127.0.0.1:${redis.port}` });
    apiPort = await listeningPort(main);
    const port = await waitFor(async () => main.lines().find((line) => typeof line.metrics_port === 'number')?.metrics_port as number | undefined, 60_000, 'the metrics line');
    metricsUrl = `http://127.0.0.1:${port}`;
  }, 90_000);
  afterAll(async () => {
    await main.stop();
    await redis.close();
    await api.close();
    await database.drop();
  });

  it('serves them on that port only, not on the API port', async () => {
    expect((await request(`http://127.0.0.1:${apiPort}`).get('/metrics')).status).toBe(404);
    expect((await api.http.get('/metrics')).status).toBe(404);
    const res = await request(metricsUrl).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/^# TYPE http_request_duration_seconds histogram$/m);
    expect(res.text).toMatch(/^# TYPE jobs_total counter$/m);
    expect((await request(metricsUrl).get('/other')).status).toBe(404);
  });

  it('counts the job outcomes of the worker role', async () => {
    const completed = async () => sample((await request(metricsUrl).get('/metrics')).text, 'jobs_total', { job: JobName.IdempotencyCleanup, outcome: 'completed' });
    const before = await completed();
    await api.app.get(JobQueue).queue(JobName.IdempotencyCleanup, { tenantId: null });
    await waitFor(async () => (await completed()) > before, 20_000, 'a completed job in the metrics');
  });

  it('serves every other metric while Redis is down: a gauge read from it keeps its last value', async () => {
    redis.down();
    try {
      // Before: the circuit gauge's read failed the whole scrape with a 500 after 2 s.
      const res = await request(metricsUrl).get('/metrics');
      expect(res.status).toBe(200);
      expect(res.text).toMatch(/^# TYPE http_request_duration_seconds histogram$/m);
      expect(res.text).toMatch(/^webhook_endpoints_circuit_open \d+$/m);
    } finally {
      redis.up();
    }
  });
});
