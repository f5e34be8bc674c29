import type { INestApplicationContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Scope } from '../src/platform/catalog/scopes.js';
import { JobQueue } from '../src/platform/queue/job-queue.service.js';
import { JOB_QUEUES, JobName, QUEUE_NAMES, REPEATING_JOBS } from '../src/platform/queue/queue.types.js';
import { WorkerRunner } from '../src/platform/queue/worker-runner.service.js';
import { startApi, type TestApi } from './support/api.js';
import { isolatedDatabase } from './support/deliveries.js';
import { waitForQueues } from './support/queues.js';
import { createTenantSession } from './support/tenant-session.js';
import { TestResourcesModule } from './support/test-resources.module.js';
import { waitFor } from './support/wait-for.js';
import { startWorker } from './support/worker.js';
import { EventRelay } from '../src/webhooks/delivery/event-relay.service.js';
import { WebhookEndpointsController } from '../src/webhooks/webhook-endpoints.controller.js';
import { WebhookEndpointsService } from '../src/webhooks/webhook-endpoints.service.js';
import { WebhookKeyRevocation } from '../src/webhooks/webhook-key-revocation.js';

/**
 * Each test stands alone (any order, any subset): every group runs on a Redis prefix of its own,
 * so workers started elsewhere, in other files or other groups, never count here.
 */
const prefix = (name: string) => ({ REDIS_PREFIX: `${process.env.REDIS_PREFIX}-worker-${name}` });

/** A group that starts a worker also has a database of its own: the worker relays and sweeps every event of its database. */
async function workerWorld(name: string): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const database = await isolatedDatabase(`worker_${name}`);
  return { env: { ...prefix(name), DATABASE_URL: database.url }, drop: database.drop };
}

const queuesOf = (jobs: JobQueue) => QUEUE_NAMES.map((name) => jobs.bullQueue(name));

async function waitForWorkers(jobs: JobQueue): Promise<void> {
  for (const queue of queuesOf(jobs)) {
    // A worker names its Redis connection (how BullMQ counts workers) once it has started pulling jobs.
    await waitFor(async () => (await queue.getWorkersCount()) > 0, 5000, `a worker on ${queue.name}`);
  }
}

describe('API role alone (e2e)', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi({ modules: [TestResourcesModule], env: prefix('api-only') });
  });
  afterAll(() => api.close());

  it('does not run workers or schedule jobs', async () => {
    for (const queue of queuesOf(api.app.get(JobQueue))) {
      expect(await queue.getWorkersCount()).toBe(0);
      expect(await queue.getJobSchedulers()).toEqual([]);
    }
  });
});

describe('worker role (e2e)', () => {
  let world: Awaited<ReturnType<typeof workerWorld>>;
  let api: TestApi;
  let jobs: JobQueue;
  let worker: INestApplicationContext;

  beforeAll(async () => {
    world = await workerWorld('running');
    api = await startApi({ modules: [TestResourcesModule], env: world.env });
    jobs = api.app.get(JobQueue);
    worker = await startWorker({ env: world.env });
    await waitForWorkers(jobs);
  });
  afterAll(async () => {
    await worker.close();
    await api.close();
    await world.drop();
  });

  it('runs one worker per queue and schedules the idempotency cleanup every 10 minutes', async () => {
    for (const queue of queuesOf(jobs)) expect(await queue.getWorkersCount()).toBe(1);
    const scheduler = await jobs.bullQueue(JOB_QUEUES[JobName.IdempotencyCleanup]).getJobScheduler(JobName.IdempotencyCleanup);
    expect(scheduler).toMatchObject({ key: JobName.IdempotencyCleanup, name: JobName.IdempotencyCleanup, every: 600_000 });
  });

  it('makes a repeating job\'s scheduler again once Redis has lost it (flushed, or restarted without its data)', async () => {
    for (const { name } of REPEATING_JOBS) await jobs.bullQueue(JOB_QUEUES[name]).removeJobScheduler(name);
    // Before: nothing made them again, and the retention and cleanup jobs never ran until a worker restarted.
    expect(await worker.get(WorkerRunner).restoreSchedules()).toEqual(REPEATING_JOBS.map(({ name }) => name));
    for (const { name, everyMs } of REPEATING_JOBS) {
      expect(await jobs.bullQueue(JOB_QUEUES[name]).getJobScheduler(name)).toMatchObject({ key: name, every: everyMs, next: expect.any(Number) });
    }
    expect(await worker.get(WorkerRunner).restoreSchedules()).toEqual([]);
  });

  it('builds the delivery side only, none of the REST side of webhooks', () => {
    expect(worker.get(EventRelay, { strict: false })).toBeInstanceOf(EventRelay);
    for (const restOnly of [WebhookEndpointsController, WebhookEndpointsService, WebhookKeyRevocation]) {
      expect(() => worker.get(restOnly, { strict: false })).toThrow();
    }
  });

  it('the cleanup job deletes expired idempotency records and keeps live ones', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesWrite] });
    const db = api.app.get(DataSource);
    const [expiredKey, liveKey] = [randomUUID(), randomUUID()];
    for (const key of [expiredKey, liveKey]) {
      expect((await api.http.post('/v1/test_events').set('Authorization', session.auth).set('Idempotency-Key', key).send({})).status).toBe(201);
    }
    await db.query(`UPDATE idempotency_keys SET expires_at = clock_timestamp() - interval '1 minute' WHERE key = $1`, [expiredKey]);

    await jobs.queue(JobName.IdempotencyCleanup, { tenantId: null });
    await waitForQueues(jobs, 10_000, [JOB_QUEUES[JobName.IdempotencyCleanup]]);
    const remaining: { key: string }[] = await db.query('SELECT key FROM idempotency_keys WHERE tenant_id = $1', [session.tenant.id]);
    expect(remaining.map((row) => row.key)).toEqual([liveKey]);
  });
});

describe('a closed worker (e2e)', () => {
  let world: Awaited<ReturnType<typeof workerWorld>>;
  let api: TestApi;

  beforeAll(async () => {
    world = await workerWorld('closed');
    api = await startApi({ modules: [TestResourcesModule], env: world.env });
  });
  afterAll(async () => {
    await api.close();
    await world.drop();
  });

  it('stops its workers when closed', async () => {
    const jobs = api.app.get(JobQueue);
    const worker = await startWorker({ env: world.env });
    await waitForWorkers(jobs);
    await worker.close();
    for (const queue of queuesOf(jobs)) expect(await queue.getWorkersCount()).toBe(0);
  });
});
