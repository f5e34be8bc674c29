import { Logger } from '@nestjs/common';
import { jest } from '@jest/globals';
import type { Job } from 'bullmq';
import type { Metrics } from '../metrics/metrics.service.js';
import type { JobRegistry } from './job-registry.service.js';
import { QUEUE_PROCESSORS } from './queue-processors.js';
import { QUEUE_NAMES, QueueName } from './queue.types.js';

type FailureListener = { onFailed(job: Job | undefined, error: Error): void };

describe('queue processors', () => {
  const Processor = QUEUE_PROCESSORS[QUEUE_NAMES.indexOf(QueueName.Maintenance)] as unknown as new (registry: JobRegistry, metrics: Metrics) => FailureListener;
  const outcomes: unknown[] = [];
  const processor = new Processor({} as JobRegistry, { jobOutcomes: { inc: (labels: unknown) => outcomes.push(labels) } } as unknown as Metrics);
  const job = { id: 'j1', name: 'idempotency.cleanup', attemptsMade: 2, opts: { attempts: 3 } } as unknown as Job;

  afterEach(() => jest.restoreAllMocks());

  it('logs a failed job at error with its id, name and attempt, and counts it', () => {
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    processor.onFailed(job, new Error('database down'));
    expect(error).toHaveBeenCalledWith(expect.objectContaining({ jobId: 'j1', job: 'idempotency.cleanup', attempt: 2 }), expect.stringContaining('failed'));
    expect(outcomes).toEqual([{ queue: 'maintenance', job: 'idempotency.cleanup', outcome: 'failed' }]);
  });
});
