import { type INestApplication, StreamableFile, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import express, { type Express } from 'express';
import { createServer, type IncomingMessage, type ServerOptions, type ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { givingBackTurn } from '../platform/auth/turn-ending.js';
import type { AppConfig } from '../platform/config/app-config.js';
import { messageClassesOf } from '../platform/http/express-messages.js';
import { answerJson } from '../platform/http/json-answer.js';
import { answerClientErrors, answerRecorder, configureHttpPipeline, httpServerOptions } from '../platform/http/http-pipeline.js';
import { PinoNestLogger } from '../platform/logging/logger.js';
import { PINO_LOGGER } from '../platform/logging/logging.module.js';
import { Metrics } from '../platform/metrics/metrics.service.js';
import { publishOpenApi } from '../platform/openapi/publish-openapi.js';
import { ApiModule } from './api.module.js';
import { FEATURE_TAGS } from './features.js';

/** A route's registration as Nest makes it: its path, then its handler. */
type RouteArgs = Parameters<ExpressAdapter['get']>;

/**
 * Nest's express adapter with its HTTP server built with the request time limits
 * (httpServerOptions), which Node reads only when a server is built, and with express's request
 * and response prototypes from the start (messageClassesOf). Nest's own version builds it with
 * neither; the other options it reads (HTTPS, the closing behaviours) this API does not pass.
 * A handler's object answer is written by answerJson, not express's `res.json`. Every route gives
 * back its request's company turn once its handler is done (givingBackTurn), whatever its method.
 */
class ApiExpressAdapter extends ExpressAdapter {
  constructor(
    instance: Express,
    private readonly serverOptions: ServerOptions,
  ) {
    super(instance);
  }

  override initHttpServer(): void {
    const instance = this.getInstance<Express>();
    this.httpServer = createServer({ ...this.serverOptions, ...messageClassesOf(instance) }, instance);
  }

  override get(...args: unknown[]): unknown {
    return super.get(...(givingBackTurn(args) as RouteArgs));
  }

  override post(...args: unknown[]): unknown {
    return super.post(...(givingBackTurn(args) as RouteArgs));
  }

  override put(...args: unknown[]): unknown {
    return super.put(...(givingBackTurn(args) as RouteArgs));
  }

  override patch(...args: unknown[]): unknown {
    return super.patch(...(givingBackTurn(args) as RouteArgs));
  }

  override delete(...args: unknown[]): unknown {
    return super.delete(...(givingBackTurn(args) as RouteArgs));
  }

  override reply(response: ServerResponse<IncomingMessage>, body: unknown, statusCode?: number): unknown {
    const plain = typeof body === 'object' && body !== null && !(body instanceof StreamableFile) && !(body instanceof Error);
    if (plain && answerJson(response, body, statusCode)) return undefined;
    return super.reply(response, body, statusCode);
  }
}

/** Builds the REST API application; `extraModules` lets tests mount test-only controllers. */
export async function createApiApp(config: AppConfig, extraModules: Type[] = []): Promise<INestApplication> {
  // /V1/INVOICES is not /v1/invoices: one spelling per route, so idempotency keys and logs name
  // one path. Set before Nest touches the instance: express fixes it when it creates its router.
  const instance = express().set('case sensitive routing', true);
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.register(config, extraModules), new ApiExpressAdapter(instance, httpServerOptions(config)), {
    bodyParser: false,
    bufferLogs: true,
  });
  // Nest's own logs (start-up, filters, terminus) go out as JSON through the process's pino logger.
  app.useLogger(app.get(PinoNestLogger));
  app.disable('x-powered-by');
  // Only the specification download carries an ETag, computed by its controller over the exact bytes,
  // and only it answers conditional requests: express's own check answered `If-None-Match: *` with
  // an empty 304 on every GET, though no client can hold a copy of a `no-store` answer.
  app.set('etag', false);
  Object.defineProperty(instance.request, 'fresh', { configurable: true, get: () => false });
  // querystring, as express's 'simple' parser, but reading every parameter: past its default
  // 1,000 it dropped the rest, an invalid `limit` or `since` among them, unseen.
  app.set('query parser', (text: string) => parseQuery(text, undefined, undefined, { maxKeys: 0 }));
  // The client address (failed-authentication limit) behind the proxies TRUST_PROXY names.
  app.set('trust proxy', config.trustProxy);
  configureHttpPipeline(app, config);
  answerClientErrors(app.getHttpServer(), config, answerRecorder(app.get(PINO_LOGGER), app.get(Metrics)));
  publishOpenApi(app, config, FEATURE_TAGS);
  await app.init();
  return app;
}
