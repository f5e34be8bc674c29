import type { INestApplication } from '@nestjs/common';
import express, { type Application, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { type IncomingMessage, type Server, type ServerOptions, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiRequest } from '../auth/auth-context.js';
import { type ErrorName, Errors } from '../catalog/errors.js';
import type { AppConfig } from '../config/app-config.js';
import { DomainException } from '../errors/domain.exception.js';
import { PROBLEM_CONTENT_TYPE, type Problem, toProblem } from '../errors/problem.js';
import { type Logger, PINO_LOGGER } from '../logging/logging.module.js';
import { markAnsweredOnSocket, onRequestDone, requestLogLine, requestOnSocket } from '../logging/request-log.js';
import { Metrics } from '../metrics/metrics.service.js';
import { TRACE_HEADER, traceIdFrom } from '../tracing/trace-id.js';
import { allowedMethods } from './allowed-methods.js';
import { checkBody, checkFraming, checkJsonCharset, checkQuery, checkUtf8, framingRefused, hasBody, notJson, withUtf8Charset } from './request-checks.js';
import { dataSecurityHeaders, securityHeaders } from './security-headers.js';
import { isUnversionedPath, resolveApiVersion, VERSION_HEADER } from '../versioning/api-version.js';

export const BODY_LIMIT = '1mb';

/**
 * What every answer the HTTP server writes itself carries besides the problem, as the pipeline's
 * answers do: they are data, never a page, and never to be stored (a 405 or 501 is cacheable by
 * default, RFC 9110 15.1).
 */
const PROTOCOL_ANSWER_HEADERS: [string, string][] = [...dataSecurityHeaders(), ['Cache-Control', 'no-store']];

/**
 * Writes the log line and counts the metric of an answer the HTTP server makes before any
 * request handler runs (417, CONNECT's 405, a request Node's parser refused): one line per
 * request, as every other answer has. `method` is null where the parser could not read one.
 */
export type AnswerRecorder = (traceId: string, method: string | null, status: number) => void;

export function answerRecorder(logger: Logger, metrics: Metrics): AnswerRecorder {
  const logLine = requestLogLine(logger);
  return (traceId, method, status) => {
    const outcome = { method: method ?? 'unknown', route: null, status, durationMs: 0 };
    logLine({ traceId } as ApiRequest, outcome);
    metrics.observeRequest(outcome.method, null, status, 0);
  };
}

const JSON_TYPES = ['application/json', 'application/*+json'];
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The options a REST or agent-tool server is built with: a whole request, headers included, must
 * arrive within HTTP_REQUEST_TIMEOUT_MS. Node checks the limits once per
 * `connectionsCheckingInterval` (30 s by default), so a request is cut at most a second late.
 */
export function httpServerOptions(config: AppConfig): ServerOptions {
  return {
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    headersTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    connectionsCheckingInterval: 1000,
    // Node would answer a missing Host with a bare 400; checkFraming answers it as a problem.
    requireHostHeader: false,
  };
}

/** What Node's HTTP server reports on a connection, as the problem answered on its socket. */
function clientError(code: string | undefined, config: AppConfig): [ErrorName, string] {
  // Node counts the request line with the headers: an overlong URL lands here too.
  if (code === 'HPE_HEADER_OVERFLOW') return ['HeadersTooLarge', 'The request line and headers together exceed 16 KiB; a long query string counts.'];
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return ['RequestTimeout', `The request did not arrive whole within ${config.HTTP_REQUEST_TIMEOUT_MS / 1000} s.`];
  return ['MalformedRequest', 'The request is not valid HTTP/1.1.'];
}

/**
 * Requests that Node's HTTP server refuses (oversized headers, broken syntax, too slow to
 * arrive) never reach express or the agent-tool front; they are answered here, on the raw
 * socket, as problems like every other error.
 */
export function answerClientErrors(server: Server, config: AppConfig, record: AnswerRecorder): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Reset, or ended before its request was whole (HPE_INVALID_EOF_STATE): no one is left to
    // answer, and the request's log line says 499 (before, 400, with a problem written to no one).
    if (error.code === 'ECONNRESET' || error.code === 'HPE_INVALID_EOF_STATE' || !socket.writable) {
      socket.destroy();
      return;
    }
    // Its 501 answers it and closes the connection (before, a 400 followed it on the same
    // connection, and the request's line said 400).
    if (framingRefused(socket)) return;
    const [name, detail] = clientError(error.code, config);
    const exception = new DomainException(name, detail);
    const status = exception.definition.status;
    // A request being read (its body too slow) is logged with this status under its own trace id,
    // which the answer names; a request Node could not read at all is logged here.
    const inFlight = requestOnSocket(socket);
    if (inFlight !== undefined) markAnsweredOnSocket(socket, status);
    const traceId = inFlight ?? traceIdFrom(undefined);
    endWithProblem(socket, exception, config, traceId);
    if (inFlight === undefined) record(traceId, null, status);
  });
  // Node answers any Expect but 100-continue with a bare 417 unless this event has a listener.
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const expectation = String(request.headers.expect).slice(0, 100);
    const exception = new DomainException('ExpectationFailed', `Expect: ${expectation} is not supported; only 100-continue is.`, { field: 'Expect' });
    const traceId = traceIdFrom(request.headers.traceparent);
    writeProblem(response, exception, config, traceId);
    record(traceId, request.method ?? null, exception.definition.status);
  });
  // Node hands CONNECT to this event instead of the request handler; without a listener the
  // socket is closed unanswered. This server is no proxy: the target names no resource here.
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    const exception = new DomainException('MethodNotAllowed', 'CONNECT is not supported: this server is not a proxy.', {}, { Allow: '' });
    const traceId = traceIdFrom(request.headers.traceparent);
    endWithProblem(socket, exception, config, traceId);
    record(traceId, 'CONNECT', exception.definition.status);
  });
}

function endWithProblem(socket: Duplex, exception: DomainException, config: AppConfig, traceId = traceIdFrom(undefined)): void {
  const { body, headers } = toProblem(exception, config.errorsBaseUrl);
  const text = JSON.stringify(body);
  const extra = [...PROTOCOL_ANSWER_HEADERS, ...Object.entries(headers)].map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(
    `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}\r\n` +
      `Content-Type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n${extra}` +
      `${TRACE_HEADER}: ${traceId}\r\nConnection: close\r\n\r\n${text}`,
  );
}

/** A problem answered by the HTTP server itself, before any framework sees the request. */
function writeProblem(response: ServerResponse, exception: DomainException, config: AppConfig, traceId: string): void {
  const { body, headers } = toProblem(exception, config.errorsBaseUrl);
  const text = JSON.stringify(body);
  response.writeHead(body.status, {
    ...Object.fromEntries(PROTOCOL_ANSWER_HEADERS),
    ...headers,
    'Content-Type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
    'Content-Length': Buffer.byteLength(text),
    [TRACE_HEADER]: traceId,
    Connection: 'close',
  });
  response.end(text);
}

/**
 * Reads a chunked body up to its first bytes: true if it ends with none. One with bytes is read
 * on to its end and dropped, as Node drops a body no one reads: left unread, it would hold the
 * connection's next request.
 */
function hasNoBytes(request: Request): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const settle = () => request.off('data', onData).off('end', onEnd).off('error', onError);
    const onData = () => {
      settle();
      request.resume();
      resolve(false);
    };
    const onEnd = () => {
      settle();
      resolve(true);
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    request.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

export function sendProblem(response: Response, problem: Problem): void {
  response.status(problem.body.status);
  for (const [name, value] of Object.entries(problem.headers)) response.setHeader(name, value);
  response.type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem.body));
}

/**
 * Middlewares that each end by calling `next` at once, as one layer of express's router: every
 * layer costs a request the router's matching and prefix work again, paid on every request.
 * An error, passed to `next` or thrown, skips the rest as it would across layers.
 */
export function inOrder(...middlewares: RequestHandler[]): RequestHandler {
  return (request, response, next) => {
    let index = 0;
    const step = (error?: unknown): void => {
      // As express's router: a falsy value passed on is no error.
      if (error || index === middlewares.length) return next(error);
      middlewares[index++](request, response, step);
    };
    step();
  };
}

/**
 * The express layer in front of Nest's router, in this order: trace id (so every answer,
 * errors and 304s included, carries `x-trace-id`), request log line and duration metric (one
 * per request, under that trace id), security headers, API version and `Cache-Control:
 * no-store` (versioned answers carry tenant data), query and media-type checks, JSON body
 * parsing and the body checks. Failures here are answered as problems directly, since Nest's
 * filters do not see them.
 */
export function configureHttpPipeline(app: INestApplication, config: AppConfig): void {
  const traceId = (request: ApiRequest, response: Response, next: NextFunction) => {
    request.traceId = traceIdFrom(request.headers.traceparent);
    response.setHeader(TRACE_HEADER, request.traceId);
    next();
  };
  const logLine = requestLogLine(app.get<symbol, Logger>(PINO_LOGGER));
  const metrics = app.get(Metrics);
  const recorded = onRequestDone((request, outcome) => {
    logLine(request, outcome);
    metrics.observeRequest(outcome.method, outcome.route, outcome.status, outcome.durationMs);
  });
  const versioned = (request: Request, response: Response, next: NextFunction) => {
    if (isUnversionedPath(request.path)) return next();
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader(VERSION_HEADER, resolveApiVersion(request.headers[VERSION_HEADER.toLowerCase()], config.API_SUNSET_VERSIONS));
    next();
  };
  const queryOnce = (request: Request, _response: Response, next: NextFunction) => {
    // Express 5's `query` is a getter that parses the query string again at every read (here, the
    // key check, the page parameters, Nest's @Query): parse it once for all of them.
    const query = request.query;
    Object.defineProperty(request, 'query', { value: query, writable: true, enumerable: true, configurable: true });
    checkQuery(query);
    next();
  };
  const expressApp = app.getHttpAdapter().getInstance() as Application;
  // A body is judged only on a route that reads it: an unknown path or method stays a 404 or
  // 405, whatever its body (a malformed or oversized JSON body was a 422 or 413 there).
  const routed = new WeakSet<Request>();
  const markRouted = (request: Request, _response: Response, next: NextFunction) => {
    if (BODY_METHODS.has(request.method) && hasBody(request.headers) && allowedMethods(expressApp, request.path).includes(request.method)) routed.add(request);
    next();
  };
  const framing = (request: Request, response: Response, next: NextFunction) => {
    checkFraming(request, response);
    next();
  };
  app.use(inOrder(traceId, recorded, securityHeaders(config), versioned, framing, queryOnce, markRouted));
  app.use((request: Request, _response: Response, next: NextFunction) => {
    if (routed.has(request)) {
      const contentType = request.headers['content-type'];
      if (!request.is(JSON_TYPES)) {
        if (request.headers['content-length'] !== undefined) throw notJson(contentType);
        // A chunked body is known to be empty only once read: no bytes is no body, whatever its type.
        return void hasNoBytes(request).then((empty) => {
          if (!empty) return next(notJson(contentType));
          routed.delete(request);
          next();
        }, next);
      }
      if (checkJsonCharset(contentType).alias) request.headers['content-type'] = withUtf8Charset(contentType!);
      // RFC 9110 8.4.1.3: x-gzip is gzip; body-parser knows only the latter name.
      if (request.headers['content-encoding']?.trim().toLowerCase() === 'x-gzip') request.headers['content-encoding'] = 'gzip';
    }
    next();
  });
  // strict: false lets any JSON value through, so routes answer "not an object" with their own key.
  // verify sees the raw bytes, which must be UTF-8 (the only charset let through above). A body
  // of no bytes is no body, whatever its Content-Type: body-parser would make it `{}`.
  const emptyBodies = new WeakSet<object>();
  const json = express.json({
    limit: BODY_LIMIT,
    strict: false,
    type: JSON_TYPES,
    verify: (request, _response, body) => {
      if (body.length === 0) emptyBodies.add(request);
      checkUtf8(body);
    },
  });
  app.use((request: Request, response: Response, next: NextFunction) => (routed.has(request) ? json(request, response, next) : next()));
  app.use((request: Request, _response: Response, next: NextFunction) => {
    if (emptyBodies.has(request)) request.body = undefined;
    if (routed.has(request)) checkBody(request.body);
    next();
  });
  app.use((error: unknown, request: ApiRequest, response: Response, next: NextFunction) => {
    if (response.headersSent) return next(error);
    // The client went away while its body was read: no one to answer, and its log line says 499, not 400.
    if ((error as { type?: unknown } | null)?.type === 'request.aborted') return;
    // Not JSON, on a route that reads its body: answered once routed, with the route's own key (refuseUnparsableBody).
    const problem = toProblem(error, config.errorsBaseUrl);
    if (routed.has(request) && problem.body.detail_key === Errors.MalformedJson.detailKey) {
      request.unparsableBody = problem.body.detail;
      request.body = undefined;
      return next();
    }
    sendProblem(response, problem);
  });
}
