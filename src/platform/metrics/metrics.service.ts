import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { JobQueue } from '../queue/job-queue.service.js';
import { QUEUE_NAMES } from '../queue/queue.types.js';

/** BullMQ job states whose counts are exported as queue depths. */
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/**
 * One registry per process (the API and worker roles of one process share it, and one server
 * or route exposes it); counters are per process and Prometheus sums them over processes.
 */
const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** The job queues the depth gauge reads, one per running application context. */
const queueSources = new Set<JobQueue>();

new Gauge({
  name: 'queue_jobs',
  help: 'Jobs in each queue by state, read from Redis when scraped',
  labelNames: ['queue', 'state'] as const,
  registers: [registry],
  async collect() {
    // Every context sees the same queues; any one of them can count.
    const [queues] = queueSources;
    if (!queues) return;
    for (const name of QUEUE_NAMES) {
      const counts = await queues.bullQueue(name).getJobCounts(...QUEUE_STATES);
      for (const state of QUEUE_STATES) this.set({ queue: name, state }, counts[state] ?? 0);
    }
  },
});

const requestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Duration of REST API requests, by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

const rateLimitRefusals = new Counter({
  name: 'rate_limit_refusals_total',
  help: 'Requests refused with 429, by limit (default, a named limit, or auth_failures)',
  labelNames: ['limit'] as const,
  registers: [registry],
});

const idempotencyReplays = new Counter({
  name: 'idempotency_replays_total',
  help: 'Requests answered from a stored Idempotency-Key response',
  registers: [registry],
});

const jobOutcomes = new Counter({
  name: 'jobs_total',
  help: 'Jobs run by this worker process, by queue, job name and outcome (completed, failed)',
  labelNames: ['queue', 'job', 'outcome'] as const,
  registers: [registry],
});

/**
 * The service's Prometheus metrics (prom-client), for injection. Features add their own
 * metrics to `registry` (webhook deliveries by outcome, for instance).
 */
@Injectable()
export class Metrics implements OnModuleDestroy {
  readonly registry = registry;
  readonly requestDuration = requestDuration;
  readonly rateLimitRefusals = rateLimitRefusals;
  readonly idempotencyReplays = idempotencyReplays;
  readonly jobOutcomes = jobOutcomes;

  constructor(@Inject(JobQueue) private readonly queues: JobQueue) {
    queueSources.add(queues);
  }

  onModuleDestroy(): void {
    queueSources.delete(this.queues);
  }

  observeRequest(method: string, route: string | null, status: number, durationMs: number): void {
    this.requestDuration.observe({ method, route: route ?? 'unmatched', status }, durationMs / 1000);
  }
}
