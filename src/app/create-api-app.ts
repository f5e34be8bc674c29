import type { INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import type { AppConfig } from '../platform/config/app-config.js';
import { answerClientErrors, configureHttpPipeline } from '../platform/http/http-pipeline.js';
import { publishOpenApi } from '../platform/openapi/publish-openapi.js';
import { ApiModule } from './api.module.js';

/** Builds the REST API application; `extraModules` lets tests mount test-only controllers. */
export async function createApiApp(config: AppConfig, extraModules: Type[] = []): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.register(config, extraModules), {
    bodyParser: false,
    bufferLogs: true,
  });
  // Nest's own logs (start-up, filters, terminus) go out as JSON through the request's pino logger.
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  // Only the specification download carries an ETag, computed by its controller over the exact bytes.
  app.set('etag', false);
  app.set('query parser', 'simple');
  configureHttpPipeline(app, config);
  answerClientErrors(app.getHttpServer(), config);
  publishOpenApi(app, config);
  app.enableShutdownHooks();
  await app.init();
  return app;
}
