import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { WorkerHost } from '@nestjs/bullmq';
import { JobQueue } from './job-queue.service.js';
import { JobRegistry } from './job-registry.service.js';
import { QUEUE_PROCESSORS } from './queue-processors.js';
import { WorkerRunner } from './worker-runner.service.js';

/** What only the worker role has: the handler registry, one BullMQ worker per queue, and their start. */
@Module({
  imports: [DiscoveryModule],
  providers: [
    JobRegistry,
    ...QUEUE_PROCESSORS,
    {
      provide: WorkerRunner,
      inject: [JobQueue, ...QUEUE_PROCESSORS],
      useFactory: (jobs: JobQueue, ...processors: WorkerHost[]) => new WorkerRunner(jobs, processors),
    },
  ],
})
export class JobWorkerModule {}
