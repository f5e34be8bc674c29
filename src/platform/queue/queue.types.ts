/**
 * Every queue and job of the service, in one place (like immich's `JobItem`/`JobOf`). A job
 * name is paired with its payload type, so `JobQueue.queue(name, data)` only compiles with the
 * right payload, and with its queue. The worker refuses to start unless every job name has
 * exactly one `@OnJob` handler. Jobs about a company carry its `tenantId` in the payload.
 *
 * Adding a job: a name in `JobName`, its payload in `JobItem`, its queue in `JOB_QUEUES`, and an
 * `@OnJob(JobName.X)` method on a provider of a module the worker imports.
 */
export const QueueName = {
  /** Housekeeping of the platform's own tables. */
  Maintenance: 'maintenance',
} as const;
export type QueueName = (typeof QueueName)[keyof typeof QueueName];

export const JobName = {
  /** Deletes idempotency records older than their 24-hour retention. */
  IdempotencyCleanup: 'idempotency.cleanup',
} as const;
export type JobName = (typeof JobName)[keyof typeof JobName];

/** The union of every job with its payload. */
export type JobItem = { name: typeof JobName.IdempotencyCleanup; data: Record<string, never> };

/** The payload type of a job name. */
export type JobOf<N extends JobName> = Extract<JobItem, { name: N }>['data'];

/** Which queue each job runs on. */
export const JOB_QUEUES: { readonly [N in JobName]: QueueName } = {
  [JobName.IdempotencyCleanup]: QueueName.Maintenance,
};

/** How many jobs of a queue one worker process runs at a time. */
export const QUEUE_CONCURRENCY: { readonly [Q in QueueName]: number } = {
  [QueueName.Maintenance]: 1,
};

/** A job the worker role schedules to repeat, through a BullMQ job scheduler. */
export type RepeatingJob = { [N in JobName]: { name: N; data: JobOf<N>; everyMs: number } }[JobName];

export const REPEATING_JOBS: readonly RepeatingJob[] = [{ name: JobName.IdempotencyCleanup, data: {}, everyMs: 10 * 60 * 1000 }];

export const QUEUE_NAMES: readonly QueueName[] = Object.values(QueueName);
export const JOB_NAMES: readonly JobName[] = Object.values(JobName);
