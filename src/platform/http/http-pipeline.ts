import type { INestApplication } from '@nestjs/common';
import express, { type NextFunction, type Request, type Response } from 'express';
import { type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiRequest } from '../auth/auth-context.js';
import type { AppConfig } from '../config/app-config.js';
import { DomainException } from '../errors/domain.exception.js';
import { PROBLEM_CONTENT_TYPE, type Problem, toProblem } from '../errors/problem.js';
import { HTTP_LOGGER, type HttpLogger } from '../logging/logging.module.js';
import { traceIdFrom } from '../tracing/trace-id.js';
import { isUnversionedPath, resolveApiVersion, VERSION_HEADER } from '../versioning/api-version.js';

export const TRACE_HEADER = 'x-trace-id';
export const BODY_LIMIT = '1mb';

/**
 * Requests that Node's HTTP parser refuses (oversized headers, broken syntax) never reach
 * express; they are answered here, on the raw socket, as problems like every other error.
 */
export function answerClientErrors(server: Server, config: AppConfig): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const exception = new DomainException(error.code === 'HPE_HEADER_OVERFLOW' ? 'HeadersTooLarge' : 'MalformedRequest');
    const { body } = toProblem(exception, config.errorsBaseUrl);
    const text = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}\r\n` +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
        `${TRACE_HEADER}: ${traceIdFrom(undefined)}\r\nConnection: close\r\n\r\n${text}`,
    );
  });
}

export function sendProblem(response: Response, problem: Problem): void {
  response.status(problem.body.status);
  for (const [name, value] of Object.entries(problem.headers)) response.setHeader(name, value);
  response.type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem.body));
}

/**
 * The express layer in front of Nest's router, in this order: trace id (so every answer,
 * errors and 304s included, carries `x-trace-id`), request log (one line per request under
 * that trace id), API version, JSON body parsing. Failures here are answered as problems
 * directly, since Nest's filters do not see them.
 */
export function configureHttpPipeline(app: INestApplication, config: AppConfig): void {
  app.use((request: ApiRequest, response: Response, next: NextFunction) => {
    request.traceId = traceIdFrom(request.headers.traceparent);
    response.setHeader(TRACE_HEADER, request.traceId);
    next();
  });
  app.use(app.get<symbol, HttpLogger>(HTTP_LOGGER));
  app.use((request: Request, response: Response, next: NextFunction) => {
    if (isUnversionedPath(request.path)) return next();
    try {
      response.setHeader(VERSION_HEADER, resolveApiVersion(request.headers[VERSION_HEADER.toLowerCase()], config.API_SUNSET_VERSIONS));
      next();
    } catch (error) {
      sendProblem(response, toProblem(error, config.errorsBaseUrl));
    }
  });
  // strict: false lets any JSON value through, so routes answer "not an object" with their own key.
  app.use(express.json({ limit: BODY_LIMIT, strict: false, type: ['application/json', 'application/*+json'] }));
  app.use((error: unknown, _request: Request, response: Response, next: NextFunction) => {
    if (response.headersSent) return next(error);
    sendProblem(response, toProblem(error, config.errorsBaseUrl));
  });
}
