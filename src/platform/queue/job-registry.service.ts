import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { Job } from 'bullmq';
import { buildHandlerMap, type DiscoveredHandler, type JobHandlerFn } from './job-handlers.js';
import { JOB_HANDLER_METADATA } from './on-job.decorator.js';
import type { JobName } from './queue.types.js';

/**
 * The worker's job → handler map, built from the `@OnJob` methods of every provider in the
 * worker's context. Start-up fails unless each job name has exactly one handler.
 */
@Injectable()
export class JobRegistry implements OnModuleInit {
  private handlers = new Map<JobName, JobHandlerFn>();

  constructor(
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const found: (DiscoveredHandler & { run: JobHandlerFn })[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown> | null;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const target = prototype![method];
        const job = typeof target === 'function' ? this.reflector.get<string | undefined>(JOB_HANDLER_METADATA, target) : undefined;
        if (job === undefined) continue;
        const handler = target as JobHandlerFn;
        found.push({ job, location: `${instance.constructor.name}.${method}`, run: async (data, context) => handler.call(instance, data, context) });
      }
    }
    this.handlers = buildHandlerMap(found);
  }

  async dispatch(job: Job): Promise<unknown> {
    const handler = this.handlers.get(job.name as JobName);
    if (!handler) throw new Error(`no handler for job ${job.name}`);
    return handler(job.data, { attempt: job.attemptsMade + 1, jobId: job.id! });
  }
}
