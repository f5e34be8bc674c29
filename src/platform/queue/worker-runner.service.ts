import type { WorkerHost } from '@nestjs/bullmq';
import { Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { JobQueue } from './job-queue.service.js';
import { REPEATING_JOBS } from './queue.types.js';

/** Starts the worker role once the context is up: the repeating jobs' schedulers, then the workers. */
export class WorkerRunner implements OnApplicationBootstrap {
  private readonly logger = new Logger(WorkerRunner.name);

  constructor(
    private readonly jobs: JobQueue,
    private readonly processors: readonly WorkerHost[],
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const job of REPEATING_JOBS) await this.jobs.schedule(job);
    for (const processor of this.processors) {
      processor.worker.run().catch((error: unknown) => this.logger.error({ err: error }, `worker ${processor.worker.name} stopped`));
    }
  }
}
