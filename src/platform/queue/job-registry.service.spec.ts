import { Injectable } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import type { Job } from 'bullmq';
import { JobRegistry } from './job-registry.service.js';
import { OnJob } from './on-job.decorator.js';
import { type JobContext, JobName, type JobOf } from './queue.types.js';

@Injectable()
class CleanupHandler {
  readonly seen: unknown[] = [];

  @OnJob(JobName.IdempotencyCleanup)
  async run(data: JobOf<typeof JobName.IdempotencyCleanup>, context: JobContext) {
    this.seen.push([data, context]);
    return 'done';
  }
}

// Type-level checks, enforced by `npm run typecheck`: a handler must take its job's payload.
@Injectable()
export class MismatchedHandlers {
  // @ts-expect-error the cleanup job's payload is { tenantId: null }, not one naming a company
  @OnJob(JobName.IdempotencyCleanup)
  async wrongPayload(data: { tenantId: string }) {
    return data;
  }

  // @ts-expect-error a payload that is merely wider (unknown) is refused too
  @OnJob(JobName.IdempotencyCleanup)
  async widerPayload(data: unknown) {
    return data;
  }
}

@Injectable()
class SecondCleanupHandler {
  @OnJob(JobName.IdempotencyCleanup)
  async run() {
    return 'again';
  }
}

/** The other jobs' handler, so that each test is about the cleanup job alone. */
@Injectable()
class RetentionHandler {
  @OnJob(JobName.EventsRetention)
  async run() {
    return 'kept';
  }
}

async function registryWith(...handlers: (typeof CleanupHandler | typeof SecondCleanupHandler)[]) {
  const module = await Test.createTestingModule({ imports: [DiscoveryModule], providers: [JobRegistry, RetentionHandler, ...handlers] }).compile();
  await module.init();
  return module;
}

describe('JobRegistry', () => {
  it('finds the @OnJob method of a provider and hands it the payload, attempt number and job id', async () => {
    const module = await registryWith(CleanupHandler);
    const job = { id: 'job-1', name: JobName.IdempotencyCleanup, data: { tenantId: null }, attemptsMade: 2 } as Job;
    const result = await module.get(JobRegistry).dispatch(job);
    expect(result).toBe('done');
    expect(module.get(CleanupHandler).seen).toEqual([[{ tenantId: null }, { attempt: 3, jobId: 'job-1' }]]);
    await module.close();
  });

  it('refuses to start when a job has two handlers, naming them', async () => {
    await expect(registryWith(CleanupHandler, SecondCleanupHandler)).rejects.toThrow(
      'job idempotency.cleanup has 2 handlers: CleanupHandler.run, SecondCleanupHandler.run',
    );
  });

  it('refuses to start when a job has no handler', async () => {
    await expect(registryWith()).rejects.toThrow('job idempotency.cleanup has no @OnJob handler');
  });
});
