import type { ApiRequest } from './auth-context.js';

/** A route as Nest registers it with express: guards, pipes, the controller's method, then the answer or the problem. */
type RouteHandler = (request: ApiRequest, response: unknown, next: unknown) => unknown;

const GIVES_BACK_TURN = Symbol('gives back the company turn');

/**
 * A route registration's arguments with its handler followed by giving back the company turn the
 * auth guard took, once the handler is done however it ends (answered, refused by a guard, a pipe
 * or the handler): not when the answer's connection closes, since a handler whose client left
 * still holds its connection and its locks, and a response queued behind another on a pipelined
 * connection never closes. A global interceptor did this before and put every request through
 * Nest's rxjs pipeline, 5-10 % of a read's CPU (docs/benchmarks.md).
 */
export function givingBackTurn<T>(args: T[]): T[] {
  return args.map((arg) => (typeof arg === 'function' ? (withTurnGivenBack(arg as RouteHandler) as T) : arg));
}

/** Whether `handler`, as registered with express, gives back its request's company turn. */
export function givesBackTurn(handler: unknown): boolean {
  return typeof handler === 'function' && GIVES_BACK_TURN in handler;
}

function withTurnGivenBack(handler: RouteHandler): RouteHandler {
  const route = async (request: ApiRequest, response: unknown, next: unknown) => {
    try {
      return await handler(request, response, next);
    } finally {
      request.endTurn?.();
    }
  };
  return Object.assign(route, { [GIVES_BACK_TURN]: true });
}
