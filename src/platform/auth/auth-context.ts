import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** Who is calling: the API key and its company, resolved by the auth guard. */
export interface AuthContext {
  tenantId: string;
  tenantSlug: string;
  apiKeyId: string;
  scopes: string[];
  userId: string | null;
}

export interface ApiRequest extends Request {
  auth?: AuthContext;
  traceId?: string;
  /** The public prefix of a well-formed API key sent with the request, for the request log. */
  keyPrefix?: string;
  /** Gives back the company's turn the auth guard took (TenantTurns), once the handler is done. */
  endTurn?: () => void;
  /**
   * Gives back what the request counted in its route's own limit (the replays'), once: set by
   * the auth guard, called by the problem filter for a request the route refuses.
   */
  refundRouteLimit?: () => void;
  /**
   * The 429 of a route's own limit, held back by the auth guard for an idempotent call: the
   * idempotency interceptor answers the stored first answer of a repeat, or this.
   */
  limitRefusal?: Error;
  /** Why a routed request's body could not be read as JSON: answered by refuseUnparsableBody, as its route says. */
  unparsableBody?: string;
}

/** The authenticated caller of the current request (only on routes with `@RequireScopes`). */
export const CurrentAuth = createParamDecorator((_: unknown, context: ExecutionContext): AuthContext => {
  const auth = context.switchToHttp().getRequest<ApiRequest>().auth;
  if (!auth) throw new Error('CurrentAuth used on a route without @RequireScopes');
  return auth;
});
