import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { settlesWithin } from '../timing/settles-within.js';

/**
 * One registry per process (the API and worker roles of one process share it, and one server
 * or route exposes it); counters are per process and Prometheus sums them over processes.
 */
const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** The process's registry, for the metrics server that starts before any role (run-roles.ts). */
export const processMetrics: Pick<Metrics, 'registry'> = { registry };

const requestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Duration of REST API requests, by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

const rateLimitRefusals = new Counter({
  name: 'rate_limit_refusals_total',
  help: 'Requests refused with 429 by the REST limits (default, company, a named limit) or the failed-authentication limit of both servers (auth_failures)',
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

/** How long a gauge's read from PostgreSQL or Redis may take at a scrape. */
const SCRAPE_READ_MS = 1_000;

/**
 * Runs a gauge's read at a scrape, giving up after SCRAPE_READ_MS or on a failure: with Redis
 * down, one gauge's read would otherwise fail (or hold) the whole scrape, and every metric with
 * it, exactly while they matter. The gauge then keeps its last value.
 */
export async function readForScrape(read: () => Promise<void>): Promise<void> {
  await settlesWithin(read(), SCRAPE_READ_MS);
}

/**
 * The service's Prometheus metrics (prom-client), for injection. Features add their own
 * metrics to `registry` (webhook deliveries by outcome, the queues' depths).
 */
@Injectable()
export class Metrics {
  readonly registry = registry;
  readonly requestDuration = requestDuration;
  readonly rateLimitRefusals = rateLimitRefusals;
  readonly idempotencyReplays = idempotencyReplays;
  readonly jobOutcomes = jobOutcomes;

  /**
   * The registry's metric `name`, created by `create` the first time: prom-client refuses a
   * second metric of one name, and every application context of the process (tests run several)
   * registers its metrics on the one registry.
   */
  once<T>(name: string, create: () => T): T {
    return (registry.getSingleMetric(name) as T | undefined) ?? create();
  }

  observeRequest(method: string, route: string | null, status: number, durationMs: number): void {
    this.requestDuration.observe({ method, route: route ?? 'unmatched', status }, durationMs / 1000);
  }
}
