/**
 * Every queue and job of the service, in one place (like immich's `JobItem`/`JobOf`). A job
 * name is paired with its payload type and its queue, so `JobQueue.queue(name, data)` only
 * compiles with the right payload, and an `@OnJob(name)` method only compiles when it takes
 * exactly that payload (plus the `JobContext`). The worker refuses to start unless every job
 * name has exactly one handler.
 *
 * Adding a job: a name in `JobName`, its payload in `JobPayloads`, its queue in `JOB_QUEUES`,
 * and an `@OnJob(JobName.X)` method on a provider of a module the worker imports.
 */
export const QueueName = {
  /** Housekeeping of the platform's own tables. */
  Maintenance: 'maintenance',
} as const;
export type QueueName = (typeof QueueName)[keyof typeof QueueName];

export const JobName = {
  /** Deletes idempotency records older than their 24-hour retention. */
  IdempotencyCleanup: 'idempotency.cleanup',
  /** Deletes events past EVENTS_RETENTION_DAYS, with their deliveries, unless one is still pending. */
  EventsRetention: 'events.retention',
} as const;
export type JobName = (typeof JobName)[keyof typeof JobName];

/** What every payload carries: its company, or `null` for housekeeping across all companies. */
interface TenantPayload {
  tenantId: string | null;
}

/** Fails to compile unless every job has a payload and every payload names its tenant. */
type CheckedPayloads<T extends { [N in JobName]: TenantPayload }> = T;

type JobPayloads = CheckedPayloads<{
  [JobName.IdempotencyCleanup]: { tenantId: null };
  [JobName.EventsRetention]: { tenantId: null };
}>;

/** The payload type of a job name. */
export type JobOf<N extends JobName> = JobPayloads[N];

/** What a handler learns about its job besides the payload. */
export interface JobContext {
  /** 1 for the first run of this job, 2 for its first retry, … */
  attempt: number;
  jobId: string;
}

/** The signature an `@OnJob(name)` method must have. */
export type JobHandler<N extends JobName> = (data: JobOf<N>, context: JobContext) => Promise<unknown>;

/** Which queue each job runs on. */
export const JOB_QUEUES: { readonly [N in JobName]: QueueName } = {
  [JobName.IdempotencyCleanup]: QueueName.Maintenance,
  [JobName.EventsRetention]: QueueName.Maintenance,
};

/** How each queue runs its jobs; nothing comes from a global default. `backoff` applies to jobs that throw. */
interface QueueSettings {
  /** Jobs one worker process runs at a time. */
  concurrency: number;
  /** Runs of a job before BullMQ gives up on it. */
  attempts: number;
  /** Wait before a retry of a job that failed without saying when to retry. */
  backoff: { type: 'exponential' | 'fixed'; delay: number };
  /** How long a worker's lock on an active job lasts without renewal (a killed worker's jobs come back after it). */
  lockDurationMs: number;
}

export const QUEUE_SETTINGS: { readonly [Q in QueueName]: QueueSettings } = {
  [QueueName.Maintenance]: { concurrency: 1, attempts: 3, backoff: { type: 'exponential', delay: 5000 }, lockDurationMs: 30_000 },
};

/** A job the worker role schedules to repeat, through a BullMQ job scheduler. */
export type RepeatingJob = { [N in JobName]: { name: N; data: JobOf<N>; everyMs: number } }[JobName];

export const REPEATING_JOBS: readonly RepeatingJob[] = [
  { name: JobName.IdempotencyCleanup, data: { tenantId: null }, everyMs: 10 * 60 * 1000 },
  { name: JobName.EventsRetention, data: { tenantId: null }, everyMs: 10 * 60 * 1000 },
];

export const QUEUE_NAMES: readonly QueueName[] = Object.values(QueueName);
export const JOB_NAMES: readonly JobName[] = Object.values(JobName);
