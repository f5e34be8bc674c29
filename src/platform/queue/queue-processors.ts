import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, type Type } from '@nestjs/common';
import type { Job } from 'bullmq';
import { JobRegistry } from './job-registry.service.js';
import { QUEUE_CONCURRENCY, QUEUE_NAMES, type QueueName } from './queue.types.js';

/**
 * One BullMQ worker per queue, each handing its jobs to the registry. Created with
 * `autorun: false`: they start pulling jobs only once the worker role has checked its handlers
 * and set up its schedules (`WorkerRunner`).
 */
function processorFor(queue: QueueName): Type<WorkerHost> {
  @Processor(queue, { autorun: false, concurrency: QUEUE_CONCURRENCY[queue] })
  class QueueProcessor extends WorkerHost {
    private readonly logger = new Logger(`queue:${queue}`);

    constructor(@Inject(JobRegistry) private readonly registry: JobRegistry) {
      super();
    }

    process(job: Job): Promise<unknown> {
      return this.registry.dispatch(job);
    }

    @OnWorkerEvent('failed')
    onFailed(job: Job | undefined, error: Error): void {
      this.logger.error({ err: error, jobId: job?.id, job: job?.name, attempt: job?.attemptsMade }, `job ${job?.name ?? '?'} failed`);
    }

    @OnWorkerEvent('error')
    onError(error: Error): void {
      this.logger.warn(`worker ${queue}: ${error.message}`);
    }
  }
  Object.defineProperty(QueueProcessor, 'name', { value: `${queue[0].toUpperCase()}${queue.slice(1)}QueueProcessor` });
  return QueueProcessor;
}

export const QUEUE_PROCESSORS: readonly Type<WorkerHost>[] = QUEUE_NAMES.map(processorFor);
