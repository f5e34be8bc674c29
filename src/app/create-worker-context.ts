import type { INestApplicationContext, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AppConfig } from '../platform/config/app-config.js';
import { WorkerModule } from './worker.module.js';

/**
 * Builds and starts the worker role: handlers checked, repeating jobs scheduled, workers
 * pulling jobs. `close()` lets running jobs finish and disconnects from Redis.
 */
export async function createWorkerContext(config: AppConfig, extraModules: Type[] = []): Promise<INestApplicationContext> {
  const context = await NestFactory.createApplicationContext(WorkerModule.register(config, extraModules), {
    logger: config.LOG_LEVEL === 'silent' ? false : ['error', 'warn'],
    abortOnError: false,
  });
  context.enableShutdownHooks();
  return context;
}
