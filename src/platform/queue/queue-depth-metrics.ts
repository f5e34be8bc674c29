import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { Metrics, readForScrape } from '../metrics/metrics.service.js';
import { JobQueue } from './job-queue.service.js';
import { QUEUE_NAMES } from './queue.types.js';

/** BullMQ job states whose counts are exported as queue depths. */
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** The job queues the depth gauge reads, one per running application context. */
const queueSources = new Set<JobQueue>();

/** `queue_jobs`: jobs in each queue by state, read from Redis when scraped, on the process's one registry. */
@Injectable()
export class QueueDepthMetrics implements OnModuleDestroy {
  constructor(@Inject(Metrics) metrics: Metrics, @Inject(JobQueue) private readonly queues: JobQueue) {
    queueSources.add(queues);
    metrics.once('queue_jobs', () =>
      new Gauge({
        name: 'queue_jobs',
        help: 'Jobs in each queue by state, read from Redis when scraped',
        labelNames: ['queue', 'state'] as const,
        registers: [metrics.registry],
        async collect() {
          // Every context sees the same queues; any one of them can count.
          const [source] = queueSources;
          if (!source) return;
          await readForScrape(async () => {
            for (const name of QUEUE_NAMES) {
              const counts = await source.bullQueue(name).getJobCounts(...QUEUE_STATES);
              for (const state of QUEUE_STATES) this.set({ queue: name, state }, counts[state] ?? 0);
            }
          });
        },
      }),
    );
  }

  onModuleDestroy(): void {
    queueSources.delete(this.queues);
  }
}
