import { Logger } from '@nestjs/common';
import { jest } from '@jest/globals';
import type { Job } from 'bullmq';
import { ExpectedRetry } from './expected-retry.js';
import type { Metrics } from '../metrics/metrics.service.js';
import type { JobRegistry } from './job-registry.service.js';
import { QUEUE_PROCESSORS } from './queue-processors.js';
import { QUEUE_NAMES, QueueName } from './queue.types.js';

type FailureListener = { onFailed(job: Job | undefined, error: Error): void };

describe('queue processors', () => {
  const Processor = QUEUE_PROCESSORS[QUEUE_NAMES.indexOf(QueueName.WebhookDelivery)] as unknown as new (registry: JobRegistry, metrics: Metrics) => FailureListener;
  const processor = new Processor({} as JobRegistry, { jobOutcomes: { inc: () => undefined } } as unknown as Metrics);
  const job = (attemptsMade: number) => ({ id: 'd1', name: 'webhook.delivery.attempt', attemptsMade, opts: { attempts: 25 } }) as unknown as Job;
  let warn: ReturnType<typeof jest.spyOn>;
  let error: ReturnType<typeof jest.spyOn>;

  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('logs an expected retry at warn, with the wait', () => {
    processor.onFailed(job(1), new ExpectedRetry('receiver answered 500', 5000));
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ jobId: 'd1', retry_in_ms: 5000 }), expect.stringContaining('will be retried'));
    expect(error).not.toHaveBeenCalled();
  });

  it('logs an unexpected failure, and a retry BullMQ will not make, at error', () => {
    processor.onFailed(job(1), new Error('database down'));
    processor.onFailed(job(25), new ExpectedRetry('receiver answered 500', 5000));
    expect(error).toHaveBeenCalledTimes(2);
    expect(warn).not.toHaveBeenCalled();
  });
});
