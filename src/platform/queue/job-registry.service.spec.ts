import { Injectable } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import type { Job } from 'bullmq';
import { JobRegistry } from './job-registry.service.js';
import { OnJob } from './on-job.decorator.js';
import { JobName } from './queue.types.js';

@Injectable()
class CleanupHandler {
  readonly seen: unknown[] = [];

  @OnJob(JobName.IdempotencyCleanup)
  async run(data: unknown) {
    this.seen.push(data);
    return 'done';
  }
}

@Injectable()
class SecondCleanupHandler {
  @OnJob(JobName.IdempotencyCleanup)
  async run() {
    return 'again';
  }
}

async function registryWith(...handlers: (typeof CleanupHandler | typeof SecondCleanupHandler)[]) {
  const module = await Test.createTestingModule({ imports: [DiscoveryModule], providers: [JobRegistry, ...handlers] }).compile();
  await module.init();
  return module;
}

describe('JobRegistry', () => {
  it('finds the @OnJob method of a provider and hands it the job payload', async () => {
    const module = await registryWith(CleanupHandler);
    const result = await module.get(JobRegistry).dispatch({ name: JobName.IdempotencyCleanup, data: { a: 1 } } as Job);
    expect(result).toBe('done');
    expect(module.get(CleanupHandler).seen).toEqual([{ a: 1 }]);
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
