import type { INestApplicationContext, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AppConfig } from '../platform/config/app-config.js';
import { PinoNestLogger } from '../platform/logging/logger.js';
import { loadWorkerModules } from './features.js';
import { WorkerModule } from './worker.module.js';

/**
 * Builds and starts the worker role: handlers checked, repeating jobs scheduled, workers
 * pulling jobs. `close()` lets running jobs finish and disconnects from Redis.
 */
export async function createWorkerContext(config: AppConfig, extraModules: Type[] = []): Promise<INestApplicationContext> {
  const context = await NestFactory.createApplicationContext(WorkerModule.register(config, await loadWorkerModules(), extraModules), {
    bufferLogs: true,
    abortOnError: false,
  });
  // JSON logs through pino, like the API role.
  context.useLogger(context.get(PinoNestLogger));
  return context;
}
