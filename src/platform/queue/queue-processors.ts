import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, type Type } from '@nestjs/common';
import type { Job } from 'bullmq';
import { Metrics } from '../metrics/metrics.service.js';
import { throttledWarning } from '../timing/throttled-warning.js';
import { JobRegistry } from './job-registry.service.js';
import { QUEUE_NAMES, QUEUE_SETTINGS, type QueueName } from './queue.types.js';

/**
 * One BullMQ worker per queue, each handing its jobs to the registry, with the queue's own
 * settings. Created with `autorun: false`: they start pulling jobs only once the worker role
 * has checked its handlers and set up its schedules (`WorkerRunner`).
 */
function processorFor(queue: QueueName): Type<WorkerHost> {
  const settings = QUEUE_SETTINGS[queue];

  @Processor(queue, {
    autorun: false,
    concurrency: settings.concurrency,
    lockDuration: settings.lockDurationMs,
    stalledInterval: settings.lockDurationMs / 2,
  })
  class QueueProcessor extends WorkerHost {
    private readonly logger = new Logger(`queue:${queue}`);

    constructor(
      @Inject(JobRegistry) private readonly registry: JobRegistry,
      @Inject(Metrics) private readonly metrics: Metrics,
    ) {
      super();
    }

    process(job: Job): Promise<unknown> {
      return this.registry.dispatch(job);
    }

    @OnWorkerEvent('completed')
    onCompleted(job: Job): void {
      this.metrics.jobOutcomes.inc({ queue, job: job.name, outcome: 'completed' });
    }

    @OnWorkerEvent('failed')
    onFailed(job: Job | undefined, error: Error): void {
      this.metrics.jobOutcomes.inc({ queue, job: job?.name ?? 'unknown', outcome: 'failed' });
      this.logger.error({ err: error, jobId: job?.id, job: job?.name, attempt: job?.attemptsMade }, `job ${job?.name ?? '?'} failed`);
    }

    private readonly warnOfError = throttledWarning((message) => this.logger.warn(message));

    @OnWorkerEvent('error')
    onError(error: Error): void {
      this.warnOfError(`worker ${queue}: ${error.message}`);
    }
  }
  Object.defineProperty(QueueProcessor, 'name', { value: `${queue.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase())}QueueProcessor` });
  return QueueProcessor;
}

export const QUEUE_PROCESSORS: readonly Type<WorkerHost>[] = QUEUE_NAMES.map(processorFor);
