import type { INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import express from 'express';
import type { AppConfig } from '../platform/config/app-config.js';
import { answerClientErrors, configureHttpPipeline } from '../platform/http/http-pipeline.js';
import { PinoNestLogger } from '../platform/logging/logger.js';
import { publishOpenApi } from '../platform/openapi/publish-openapi.js';
import { ApiModule } from './api.module.js';
import { FEATURE_TAGS } from './features.js';

/** Builds the REST API application; `extraModules` lets tests mount test-only controllers. */
export async function createApiApp(config: AppConfig, extraModules: Type[] = []): Promise<INestApplication> {
  // /V1/INVOICES is not /v1/invoices: one spelling per route, so idempotency keys and logs name
  // one path. Set before Nest touches the instance: express fixes it when it creates its router.
  const instance = express().set('case sensitive routing', true);
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.register(config, extraModules), new ExpressAdapter(instance), {
    bodyParser: false,
    bufferLogs: true,
  });
  // Nest's own logs (start-up, filters, terminus) go out as JSON through the process's pino logger.
  app.useLogger(app.get(PinoNestLogger));
  app.disable('x-powered-by');
  // Only the specification download carries an ETag, computed by its controller over the exact bytes.
  app.set('etag', false);
  app.set('query parser', 'simple');
  // The client address (failed-authentication limit) behind the proxies TRUST_PROXY names.
  app.set('trust proxy', config.trustProxy);
  configureHttpPipeline(app, config);
  answerClientErrors(app.getHttpServer(), config);
  publishOpenApi(app, config, FEATURE_TAGS);
  await app.init();
  return app;
}
