import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { AppConfig } from '../config/app-config.js';
import { JobQueue } from './job-queue.service.js';
import { QueueDepthMetrics } from './queue-depth-metrics.js';
import { QUEUE_NAMES } from './queue.types.js';

/**
 * BullMQ on `REDIS_URL`, every key under `REDIS_PREFIX`, and one queue per `QueueName`.
 * Queues only: workers exist in the worker role alone (`WorkerModule`).
 */
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        // disconnectTimeout: ioredis otherwise holds a timer for 2 s at shutdown when the socket had already failed.
        connection: { url: config.REDIS_URL, disconnectTimeout: 500 },
        prefix: config.REDIS_PREFIX,
        // Attempts and backoff come from each queue's settings (JobQueue), never from here.
        defaultJobOptions: { removeOnComplete: { age: 24 * 3600, count: 1000 }, removeOnFail: { age: 7 * 24 * 3600 } },
      }),
    }),
    BullModule.registerQueue(...QUEUE_NAMES.map((name) => ({ name }))),
  ],
  providers: [
    {
      provide: JobQueue,
      inject: QUEUE_NAMES.map((name) => getQueueToken(name)),
      useFactory: (...queues: Queue[]) => new JobQueue(queues),
    },
    QueueDepthMetrics,
  ],
  exports: [JobQueue, BullModule],
})
export class QueueModule {}
