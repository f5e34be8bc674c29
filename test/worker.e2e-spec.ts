import type { INestApplicationContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Scope } from '../src/platform/catalog/scopes.js';
import { JobQueue } from '../src/platform/queue/job-queue.service.js';
import { JOB_QUEUES, JobName, QUEUE_NAMES } from '../src/platform/queue/queue.types.js';
import { startApi, type TestApi } from './support/api.js';
import { createTenantSession } from './support/tenant-session.js';
import { TestResourcesModule } from './support/test-resources.module.js';
import { waitFor } from './support/wait-for.js';
import { startWorker } from './support/worker.js';

// A Redis prefix of this file's own, so workers started by other test files do not count here.
const env = { REDIS_PREFIX: `${process.env.REDIS_PREFIX}-worker` };

describe('worker role (e2e)', () => {
  let api: TestApi;
  let jobs: JobQueue;
  let worker: INestApplicationContext | undefined;

  beforeAll(async () => {
    api = await startApi({ modules: [TestResourcesModule], env });
    jobs = api.app.get(JobQueue);
  });
  afterAll(async () => {
    await worker?.close();
    await api.close();
  });

  const queues = () => QUEUE_NAMES.map((name) => jobs.bullQueue(name));

  it('does not run workers or schedule jobs in the API role alone', async () => {
    for (const queue of queues()) {
      expect(await queue.getWorkersCount()).toBe(0);
      expect(await queue.getJobSchedulers()).toEqual([]);
    }
  });

  it('runs one worker per queue and schedules the idempotency cleanup every 10 minutes', async () => {
    worker = await startWorker({ env });
    for (const queue of queues()) {
      // A worker names its Redis connection (how BullMQ counts workers) once it has started pulling jobs.
      await waitFor(async () => (await queue.getWorkersCount()) > 0, 5000, `a worker on ${queue.name}`);
      expect(await queue.getWorkersCount()).toBe(1);
    }
    const scheduler = await jobs.bullQueue(JOB_QUEUES[JobName.IdempotencyCleanup]).getJobScheduler(JobName.IdempotencyCleanup);
    expect(scheduler).toMatchObject({ key: JobName.IdempotencyCleanup, name: JobName.IdempotencyCleanup, every: 600_000 });
  });

  it('the cleanup job deletes expired idempotency records and keeps live ones', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesWrite] });
    const db = api.app.get(DataSource);
    const [expiredKey, liveKey] = [randomUUID(), randomUUID()];
    for (const key of [expiredKey, liveKey]) {
      expect((await api.http.post('/v1/test_events').set('Authorization', session.auth).set('Idempotency-Key', key).send({})).status).toBe(201);
    }
    await db.query(`UPDATE idempotency_keys SET expires_at = clock_timestamp() - interval '1 minute' WHERE key = $1`, [expiredKey]);

    await jobs.queue(JobName.IdempotencyCleanup, {});
    const remaining = await waitFor(
      async () => {
        const rows: { key: string }[] = await db.query('SELECT key FROM idempotency_keys WHERE tenant_id = $1', [session.tenant.id]);
        return rows.length === 1 && rows;
      },
      10_000,
      'the expired record to be deleted',
    );
    expect(remaining.map((row) => row.key)).toEqual([liveKey]);
  });

  it('stops its workers when closed', async () => {
    await worker!.close();
    worker = undefined;
    for (const queue of queues()) expect(await queue.getWorkersCount()).toBe(0);
  });
});
