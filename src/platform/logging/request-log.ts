import type { NextFunction, Request } from 'express';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { ApiRequest } from '../auth/auth-context.js';
import { fieldLineLogger } from './logger.js';

/** What one request line says, and what the request metrics are labelled with. */
export interface RequestOutcome {
  method: string;
  /** The matched route pattern (`/v1/invoices/:id`), never the path: no ids, no query string. */
  route: string | null;
  status: number;
  durationMs: number;
}

/**
 * The route pattern express matched, or null when no route did (404, or refused before routing).
 * express also names a route it only tried, a HEAD on a path served without GET (answered 405):
 * that route served nothing, as for a GET there.
 */
export function routePattern(request: Request): string | null {
  const route = (request as Request & { route?: { path?: unknown; methods?: Record<string, boolean> } }).route;
  if (typeof route?.path !== 'string') return null;
  const methods = route.methods ?? {};
  const served = methods[request.method.toLowerCase()] || methods._all || (request.method === 'HEAD' && methods.get);
  return served ? `${request.baseUrl}${route.path}` : null;
}

/** The status a connection was answered with outside the request's own response (a 408 on the raw socket). */
const ANSWERED_ON_SOCKET = Symbol('answered on the socket');
/** The trace id of the request a connection is serving, until that request is recorded. */
const REQUEST_ON_SOCKET = Symbol('request on the socket');
type AnsweredSocket = { [ANSWERED_ON_SOCKET]?: number; [REQUEST_ON_SOCKET]?: string };

/**
 * The trace id of the request the connection is reading or answering, if any: an answer Node
 * makes on the socket for it (a 408 to a body too slow) names it, and leaves its line to it.
 */
export function requestOnSocket(socket: object): string | undefined {
  return (socket as AnsweredSocket)[REQUEST_ON_SOCKET];
}

/**
 * Records that the socket was answered `status` directly (http-pipeline's answerClientErrors), so
 * a request still being read on it is logged and counted with the status its client received,
 * not with whatever its own response said after the socket was gone.
 */
export function markAnsweredOnSocket(socket: object, status: number): void {
  (socket as AnsweredSocket)[ANSWERED_ON_SOCKET] = status;
}

/**
 * Calls `record` once per request when its answer is sent or the client goes away, with the
 * method, route (`route`: express's matched pattern unless the server routes by itself), status
 * and duration. Mounted right after the trace id is set, so requests refused anywhere later are
 * recorded too.
 */
export function onRequestDone(record: (request: ApiRequest, outcome: RequestOutcome) => void, route: (request: ApiRequest) => string | null = routePattern) {
  return (request: ApiRequest, response: ServerResponse, next: NextFunction): void => {
    const started = performance.now();
    // Read now: a request destroyed while its body is read (one over the limit) has no socket by its close.
    const socket = request.socket as AnsweredSocket;
    socket[REQUEST_ON_SOCKET] = request.traceId;
    whenClosed(response, () => {
      if (socket[REQUEST_ON_SOCKET] === request.traceId) socket[REQUEST_ON_SOCKET] = undefined;
      record(request, {
        method: request.method,
        route: route(request),
        status: socket[ANSWERED_ON_SOCKET] ?? (response.writableFinished ? response.statusCode : 499),
        durationMs: performance.now() - started,
      });
    });
    next();
  };
}

/** The callbacks of a socket's queued responses, called when it closes: one listener per socket, however deep the pipeline. */
const queuedOn = new WeakMap<Socket, Set<() => void>>();

/**
 * Calls `listener` once, when the response closes or, for a response queued behind another on a
 * pipelined connection (it has no socket yet), when the connection closes first: Node never
 * closes such a response, so its request would go unlogged and uncounted.
 */
export function whenClosed(response: ServerResponse, listener: () => void): void {
  const socket = response.socket ? undefined : response.req?.socket;
  if (!socket) {
    response.once('close', listener);
    return;
  }
  let queued = queuedOn.get(socket);
  if (!queued) {
    const callbacks = new Set<() => void>();
    queued = callbacks;
    queuedOn.set(socket, callbacks);
    socket.once('close', () => {
      queuedOn.delete(socket);
      for (const callback of callbacks) callback();
    });
  }
  let called = false;
  const once = () => {
    if (called) return;
    called = true;
    queued.delete(once);
    listener();
  };
  queued.add(once);
  response.once('close', once);
}

/**
 * One compact line per request: method, route pattern, status, duration, trace id and the API
 * key's public prefix. Built from these fields alone, never from the request or response
 * objects, so no header, query string or body (where a misplaced key could sit) reaches the log,
 * and the line needs no redaction (fieldLineLogger). 5xx at `error`, the rest (a request the
 * client abandoned, 499, included) at `info`.
 */
export function requestLogLine(logger: Logger): (request: ApiRequest, outcome: RequestOutcome) => void {
  const lines = fieldLineLogger(logger);
  return (request, outcome) => {
    // 499 is the client hanging up: its choice, not a fault of ours to alert on.
    const level = outcome.status >= 500 ? 'error' : 'info';
    if (!lines.isLevelEnabled(level)) return;
    lines[level](
      {
        trace_id: request.traceId,
        method: outcome.method,
        route: outcome.route,
        status: outcome.status,
        duration_ms: Math.round(outcome.durationMs * 10) / 10,
        key_prefix: request.keyPrefix ?? null,
      },
      'request completed',
    );
  };
}
