import type { INestApplicationContext, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AppConfig } from '../platform/config/app-config.js';
import { createLogger, PinoNestLogger } from '../platform/logging/logger.js';
import { loadWorkerModules } from './features.js';
import { WorkerModule } from './worker.module.js';

/**
 * Builds and starts the worker role: handlers checked, repeating jobs scheduled, workers
 * pulling jobs. `close()` lets running jobs finish and disconnects from Redis.
 */
export async function createWorkerContext(config: AppConfig, extraModules: Type[] = []): Promise<INestApplicationContext> {
  // JSON logs through pino, like the API role, from the first line: the context starts as it is
  // made, and a start refused (SealedSecretsCheck) would flush buffered lines as Nest's plain text.
  const context = await NestFactory.createApplicationContext(WorkerModule.register(config, await loadWorkerModules(), extraModules), {
    logger: new PinoNestLogger(createLogger(config)),
    abortOnError: false,
  });
  context.useLogger(context.get(PinoNestLogger));
  return context;
}
