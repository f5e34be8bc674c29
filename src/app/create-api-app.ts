import type { INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AppConfig } from '../platform/config/app-config.js';
import { configureHttpPipeline } from '../platform/http/http-pipeline.js';
import { ApiModule } from './api.module.js';

/** Builds the REST API application; `extraModules` lets tests mount test-only controllers. */
export async function createApiApp(config: AppConfig, extraModules: Type[] = []): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.register(config, extraModules), {
    bodyParser: false,
    logger: config.LOG_LEVEL === 'silent' ? false : ['error', 'warn'],
  });
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  configureHttpPipeline(app, config);
  app.enableShutdownHooks();
  await app.init();
  return app;
}
