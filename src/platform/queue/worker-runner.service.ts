import type { WorkerHost } from '@nestjs/bullmq';
import { type BeforeApplicationShutdown, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { JobQueue } from './job-queue.service.js';
import { REPEATING_JOBS } from './queue.types.js';

/**
 * How often a worker checks that Redis still holds the repeating jobs' schedulers: a flush, or a
 * restart without its data, loses them, and with them every later run of the retention and
 * cleanup jobs until a worker started again (found by a review: six minutes after a flush, none).
 */
export const SCHEDULE_CHECK_MS = 60_000;

/**
 * Starts the worker role once the context is up: the repeating jobs' schedulers, then the
 * workers. At shutdown (SIGTERM) it stops them first, while the database and Redis connections
 * are still open: each worker takes no new job and waits for its running ones to finish.
 */
export class WorkerRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WorkerRunner.name);
  private scheduleCheck: NodeJS.Timeout | undefined;

  constructor(
    private readonly jobs: JobQueue,
    private readonly processors: readonly WorkerHost[],
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const job of REPEATING_JOBS) await this.jobs.schedule(job);
    this.scheduleCheck = setInterval(() => void this.restoreSchedules(), SCHEDULE_CHECK_MS).unref();
    for (const processor of this.processors) {
      processor.worker.run().catch((error: unknown) => this.logger.error({ err: error }, `worker ${processor.worker.name} stopped`));
    }
  }

  /**
   * Makes again each repeating job's scheduler Redis no longer holds, and answers their names.
   * Every worker checks; making one twice is harmless (the scheduler is upserted by its name).
   */
  async restoreSchedules(): Promise<string[]> {
    const restored: string[] = [];
    try {
      for (const job of REPEATING_JOBS) {
        if (await this.jobs.isScheduled(job)) continue;
        await this.jobs.schedule(job);
        restored.push(job.name);
      }
    } catch (error) {
      // Redis away: the next check tries again; its connections already warn of the outage.
      this.logger.warn(`checking the repeating jobs' schedulers failed (${(error as Error).message}); trying again in ${SCHEDULE_CHECK_MS / 1000} s`);
    }
    if (restored.length > 0) this.logger.warn(`the schedulers of ${restored.join(', ')} were gone from Redis (flushed, or restarted without its data); made again`);
    return restored;
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.scheduleCheck);
    await Promise.all(this.processors.map((processor) => processor.worker.close()));
  }
}
