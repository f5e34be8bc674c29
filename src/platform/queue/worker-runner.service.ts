import type { WorkerHost } from '@nestjs/bullmq';
import { type BeforeApplicationShutdown, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { JobQueue } from './job-queue.service.js';
import { REPEATING_JOBS } from './queue.types.js';

/**
 * Starts the worker role once the context is up: the repeating jobs' schedulers, then the
 * workers. At shutdown (SIGTERM) it stops them first, while the database and Redis connections
 * are still open: each worker takes no new job and waits for its running ones to finish.
 */
export class WorkerRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
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

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.processors.map((processor) => processor.worker.close()));
  }
}
