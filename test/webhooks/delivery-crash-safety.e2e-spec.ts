import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { Scope } from '../../src/platform/catalog/scopes.js';
import { EventPublisher } from '../../src/platform/events/event-publisher.service.js';
import { TenantData } from '../../src/platform/tenancy/tenant-data.js';
import { JobQueue } from '../../src/platform/queue/job-queue.service.js';
import { QueueName } from '../../src/platform/queue/queue.types.js';
import { DeliveryGate } from '../../src/webhooks/delivery/gate/delivery-gate.js';
import { startApi, type TestApi } from '../support/api.js';
import { createEndpoint, deliveryEnv, eventData, isolatedDatabase } from '../support/deliveries.js';
import { type MainProcess, spawnMain } from '../support/main-process.js';
import { createTenantSession, type TenantSession } from '../support/tenant-session.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Bursts of the 2,000 events against real worker processes (`node dist/main.js`,
 * APP_ROLES=worker); DELIVERY_BURST_EVENTS changes the size.
 */
const BURST = Number(process.env.DELIVERY_BURST_EVENTS ?? 2000);
/** A burst test on a loaded CI machine: a worker start, the burst, and for (a) the expiry of a killed worker's leases. */
const BURST_TEST_TIMEOUT_MS = 180_000;

describe('delivery crash safety (e2e, worker processes)', () => {
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let env: Record<string, string>;
  let api: TestApi;
  let receiver: WebhookReceiver;
  let db: DataSource;
  let jobs: JobQueue;
  let session: TenantSession;
  const workers: MainProcess[] = [];

  const spawnWorker = () => {
    const worker = spawnMain({ ...env, APP_ROLES: 'worker', LOG_LEVEL: 'warn' });
    workers.push(worker);
    return worker;
  };
  // A worker process starts its queue workers and its delivery loop together.
  const workerCount = () => jobs.bullQueue(QueueName.Maintenance).getWorkersCount();
  /**
   * Exactly `count` worker processes, started: those of the test before are kept (a process
   * start is seconds of CPU on a loaded CI machine), stopped when there are more, added when fewer.
   */
  async function workersRunning(count: number): Promise<MainProcess[]> {
    const gone = workers.filter((worker) => worker.child.exitCode !== null || worker.child.signalCode !== null);
    for (const worker of gone) workers.splice(workers.indexOf(worker), 1);
    await Promise.all(workers.splice(count).map((worker) => worker.stop()));
    while (workers.length < count) spawnWorker();
    await waitFor(async () => (await workerCount()) === count, 60_000, `${count} workers to run`);
    return workers;
  }

  beforeAll(async () => {
    database = await isolatedDatabase('crash');
    env = deliveryEnv('crash', database.url, { WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_SWEEP_INTERVAL_MS: '500' });
    api = await startApi({ env });
    receiver = await startReceiver();
    db = api.app.get(DataSource);
    jobs = api.app.get(JobQueue);
  }, BURST_TEST_TIMEOUT_MS);
  afterEach(() => {
    receiver.respond = () => ({ status: 204 });
  });
  afterAll(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
    await api.close();
    await receiver.close();
    await database.drop();
  });

  /** A company with one endpoint, then `count` events committed in transactions of 100. */
  async function burst(path: string, count = BURST): Promise<{ endpointId: string; eventIds: string[] }> {
    session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const { endpoint } = await createEndpoint(api.app, { tenantId: session.tenant.id, apiKeyId: session.keyId }, { url: receiver.url(path) });
    const publisher = api.app.get(EventPublisher);
    const eventIds: string[] = [];
    for (let sent = 0; sent < count; sent += 100) {
      const data = await Promise.all(Array.from({ length: Math.min(count, sent + 100) - sent }, (_, i) => eventData(api.app, 'fin.invoice.created', { n: sent + i })));
      await api.app.get(TenantData).transaction(session.tenant.id, async (scope) => {
        for (const one of data) eventIds.push((await publisher.publish(scope, 'fin.invoice.created', one)).id);
      });
    }
    return { endpointId: endpoint.id, eventIds };
  }

  async function allDelivered(endpointId: string, count: number, timeoutMs = 90_000) {
    return waitFor(
      async () => {
        const [row] = await db.query(
          `SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'delivered')::int AS delivered FROM webhook_deliveries WHERE endpoint_id = $1`,
          [endpointId],
        );
        return row.total === count && row.delivered === count && row;
      },
      timeoutMs,
      `${count} delivered deliveries`,
    );
  }

  /** Requests received per envelope id at `path`: every event at least once; the excess is the duplicates. */
  function received(path: string, eventIds: string[]) {
    const counts = new Map<string, number>();
    for (const request of receiver.requests) if (request.path === path) counts.set(String(request.headers['webhook-id']), (counts.get(String(request.headers['webhook-id'])) ?? 0) + 1);
    const missing = eventIds.filter((id) => !counts.has(id));
    const duplicates = [...counts.values()].reduce((sum, n) => sum + n - 1, 0);
    return { missing, duplicates };
  }

  it('(a) SIGKILL of the worker mid-burst and a restart: every delivery ends delivered, none is lost', async () => {
    const [killed] = await workersRunning(1);
    receiver.respond = () => ({ status: 204, delayMs: 5 });
    const { endpointId, eventIds } = await burst('/kill');
    await waitFor(async () => receiver.requests.filter((request) => request.path === '/kill').length >= BURST / 4, 60_000, 'a quarter of the burst');
    killed.child.kill('SIGKILL');
    await killed.exit;
    workers.splice(workers.indexOf(killed), 1);
    spawnWorker();

    await allDelivered(endpointId, BURST);
    const { missing, duplicates } = received('/kill', eventIds);
    expect(missing).toEqual([]);
    // At-least-once: a request whose answer arrived as the worker died is sent again.
    console.log(`crash safety (a): ${BURST} events, ${duplicates} duplicate requests at the receiver after SIGKILL`);
    const [{ attempts }] = await db.query(`SELECT count(*)::int AS attempts FROM webhook_delivery_attempts WHERE endpoint_id = $1`, [endpointId]);
    expect(attempts).toBeGreaterThanOrEqual(BURST);
  }, BURST_TEST_TIMEOUT_MS);

  it('(b) a Redis flush of this deployment mid-burst: the sweep restores every pending delivery', async () => {
    await workersRunning(1);
    receiver.respond = () => ({ status: 204, delayMs: 5 });
    const { endpointId, eventIds } = await burst('/flush');
    await waitFor(async () => receiver.requests.filter((request) => request.path === '/flush').length >= BURST / 4, 60_000, 'a quarter of the burst');

    // What FLUSHALL means for this deployment: every key under its REDIS_PREFIX. The shared
    // Redis of other test runs is left alone.
    const redis = new Redis(api.config.REDIS_URL);
    let deleted = 0;
    for await (const keys of redis.scanStream({ match: `${api.config.REDIS_PREFIX}:*`, count: 1000 })) {
      if ((keys as string[]).length > 0) deleted += await redis.del(...(keys as string[]));
    }
    await redis.quit();
    expect(deleted).toBeGreaterThan(0);

    await allDelivered(endpointId, BURST);
    expect(received('/flush', eventIds).missing).toEqual([]);
    await waitFor(async () => {
      const backlog = await api.app.get(DeliveryGate).backlog(endpointId);
      return backlog.waiting === 0 && backlog.inFlight === 0;
    }, 30_000, 'the delivery gate to hold nothing of the endpoint');
  }, BURST_TEST_TIMEOUT_MS);

  it('(c) two workers share a burst and never send one attempt twice at the same time', async () => {
    await workersRunning(2);
    // Half the first attempts fail, so retries are shared between the workers too.
    receiver.respond = (request) => ({ status: request.body.includes('"n":') && Number(/"n":(\d+)/.exec(request.body)![1]) % 2 === 0 && !retried.has(String(request.headers['webhook-id'])) ? (retried.add(String(request.headers['webhook-id'])), 500) : 204, delayMs: 5 });
    const retried = new Set<string>();
    const { endpointId, eventIds } = await burst('/shared');

    await allDelivered(endpointId, BURST);
    expect(receiver.maxConcurrentPerId()).toBe(1);
    const { missing, duplicates } = received('/shared', eventIds);
    expect(missing).toEqual([]);
    // Each delivery succeeded by exactly one attempt, every other attempt failed and was recorded:
    // the planned 500s, plus on a loaded machine an attempt that timed out and was sent again,
    // as at-least-once requires. Nothing reached the receiver without a recorded attempt.
    const [row] = await db.query(
      `SELECT count(*)::int AS attempts,
              count(*) FILTER (WHERE response_status = 500)::int AS refused,
              count(*) FILTER (WHERE response_status IS NULL OR response_status NOT BETWEEN 200 AND 299)::int AS failed
         FROM webhook_delivery_attempts WHERE endpoint_id = $1`,
      [endpointId],
    );
    expect(row.attempts).toBe(BURST + row.failed);
    expect(row.refused).toBeLessThanOrEqual(retried.size);
    expect(row.failed).toBeGreaterThanOrEqual(retried.size);
    expect(duplicates).toBeGreaterThanOrEqual(row.refused);
    expect(duplicates).toBeLessThanOrEqual(row.failed);
  }, BURST_TEST_TIMEOUT_MS);

  it('SIGTERM finishes the attempts in flight before the worker exits', async () => {
    const [worker] = await workersRunning(1);
    receiver.respond = () => ({ status: 204, delayMs: 700 });
    const { endpointId } = await burst('/term', 10);
    await waitFor(async () => receiver.requests.filter((request) => request.path === '/term').length === 10, 30_000, 'ten requests in flight');
    worker.child.kill('SIGTERM');
    await worker.exit;

    const rows: { status: string; lease_token: string | null }[] = await db.query(`SELECT status, lease_token FROM webhook_deliveries WHERE endpoint_id = $1`, [endpointId]);
    expect(rows).toHaveLength(10);
    expect(rows.every((row) => row.status === 'delivered' && row.lease_token === null)).toBe(true);
  }, BURST_TEST_TIMEOUT_MS);
});
