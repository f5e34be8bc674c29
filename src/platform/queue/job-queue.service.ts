import { Logger } from '@nestjs/common';
import type { JobsOptions, Queue } from 'bullmq';
import { throttledWarning } from '../timing/throttled-warning.js';
import { JOB_QUEUES, type JobName, type JobOf, QUEUE_SETTINGS, type QueueName, type RepeatingJob } from './queue.types.js';

/**
 * Puts jobs on their queues; available in every role (the API enqueues, the worker runs).
 * The job name decides the queue and, through `JobOf`, the payload type.
 */
export class JobQueue {
  private readonly logger = new Logger(JobQueue.name);
  private readonly queues: ReadonlyMap<QueueName, Queue>;

  constructor(queues: readonly Queue[]) {
    this.queues = new Map(queues.map((queue) => [queue.name as QueueName, queue]));
    // Without a listener BullMQ prints connection errors to the console; they belong in the log.
    for (const queue of queues) {
      const warn = throttledWarning((message) => this.logger.warn(message));
      queue.on('error', (error) => warn(`queue ${queue.name}: ${error.message}`));
    }
  }

  /** Adds one job with its queue's attempts and backoff; returns its id. */
  async queue<N extends JobName>(name: N, data: JobOf<N>, options: Omit<JobsOptions, 'repeat'> = {}): Promise<string> {
    const job = await this.bullQueue(JOB_QUEUES[name]).add(name, data, { ...jobDefaults(name), ...options });
    return job.id!;
  }

  /** Creates or updates the scheduler of a repeating job (idempotent, so every worker may call it). */
  async schedule(job: RepeatingJob): Promise<void> {
    await this.bullQueue(JOB_QUEUES[job.name]).upsertJobScheduler(job.name, { every: job.everyMs }, { name: job.name, data: job.data, opts: jobDefaults(job.name) });
  }

  /** Whether Redis holds the scheduler of a repeating job. */
  async isScheduled(job: RepeatingJob): Promise<boolean> {
    return (await this.bullQueue(JOB_QUEUES[job.name]).getJobScheduler(job.name)) !== undefined;
  }

  /** The BullMQ queue itself, for inspection (counts, schedulers, workers). */
  bullQueue(name: QueueName): Queue {
    const queue = this.queues.get(name);
    if (!queue) throw new Error(`queue ${name} is not registered`);
    return queue;
  }
}

/** A job's attempts and backoff, from its queue's settings. */
function jobDefaults(name: JobName): Pick<JobsOptions, 'attempts' | 'backoff'> {
  const { attempts, backoff } = QUEUE_SETTINGS[JOB_QUEUES[name]];
  return { attempts, backoff };
}
