import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { Metrics, readForScrape } from '../../platform/metrics/metrics.service.js';
import { DeliveryStore } from './delivery-store.js';
import { DeliveryGate } from './gate/delivery-gate.js';
import type { SendErrorKind } from './webhook-sender.js';

/** An attempt's outcome label: the answer's class (410 on its own: it ends the delivery), or why there was none. */
export type AttemptOutcomeLabel = '2xx' | '3xx' | '4xx' | '5xx' | '410' | SendErrorKind;

export function attemptOutcomeLabel(result: { responseStatus: number } | { errorKind: SendErrorKind }): AttemptOutcomeLabel {
  if ('errorKind' in result) return result.errorKind;
  if (result.responseStatus === 410) return '410';
  return `${Math.min(5, Math.max(2, Math.floor(result.responseStatus / 100)))}xx` as AttemptOutcomeLabel;
}

/** Where the gauges read from: one per worker context in this process (tests run several). */
const sources = new Set<{ store: DeliveryStore; gate: DeliveryGate }>();

/**
 * The delivery worker's Prometheus metrics, on the process's registry: attempts by outcome,
 * attempt duration, commit → first attempt latency, and, read when scraped, the oldest pending
 * delivery's age and the endpoints whose circuit is open.
 */
@Injectable()
export class DeliveryMetrics implements OnModuleDestroy {
  readonly attempts: Counter<'outcome'>;
  readonly attemptDuration: Histogram<'outcome'>;
  readonly firstAttemptLatency: Histogram;
  private readonly source: { store: DeliveryStore; gate: DeliveryGate };

  constructor(@Inject(Metrics) metrics: Metrics, @Inject(DeliveryStore) store: DeliveryStore, @Inject(DeliveryGate) gate: DeliveryGate) {
    const registers = [metrics.registry];
    this.source = { store, gate };
    sources.add(this.source);
    this.attempts = metrics.once('webhook_delivery_attempts_total', () =>
      new Counter({ name: 'webhook_delivery_attempts_total', help: 'Webhook delivery attempts by outcome (2xx, 3xx, 4xx, 5xx, 410, timeout, connect, dns, tls, ssrf, protocol)', labelNames: ['outcome'] as const, registers }),
    );
    this.attemptDuration = metrics.once('webhook_delivery_attempt_duration_seconds', () =>
      new Histogram({
        name: 'webhook_delivery_attempt_duration_seconds',
        help: 'Duration of webhook delivery attempts, from the URL check to the end of the answer',
        labelNames: ['outcome'] as const,
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
        registers,
      }),
    );
    this.firstAttemptLatency = metrics.once('webhook_delivery_first_attempt_latency_seconds', () =>
      new Histogram({
        name: 'webhook_delivery_first_attempt_latency_seconds',
        help: "Time from an event's commit to the start of its delivery's first attempt",
        buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
        registers,
      }),
    );
    metrics.once('webhook_deliveries_oldest_pending_age_seconds', () =>
      new Gauge({
        name: 'webhook_deliveries_oldest_pending_age_seconds',
        help: 'Age of the oldest pending webhook delivery (0 when none), read from PostgreSQL when scraped',
        registers,
        async collect() {
          const [source] = sources;
          if (source) await readForScrape(async () => this.set(await source.store.oldestPendingAgeSeconds()));
        },
      }),
    );
    metrics.once('webhook_endpoints_circuit_open', () =>
      new Gauge({
        name: 'webhook_endpoints_circuit_open',
        help: 'Webhook endpoints whose circuit breaker is open or half-open, read from Redis when scraped',
        registers,
        async collect() {
          const [source] = sources;
          if (source) await readForScrape(async () => this.set(await source.gate.openCircuits()));
        },
      }),
    );
  }

  onModuleDestroy(): void {
    sources.delete(this.source);
  }
}
