import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { ApiRequest, AuthContext } from '../auth/auth-context.js';
import { DomainException } from '../errors/domain.exception.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

export interface PageRequest {
  limit: number;
  cursor?: string;
  /**
   * Whose cursors these are: the company and credential (API key) asking. A cursor is signed for
   * its list and its holder, so another company's or another key's cursor is refused.
   */
  holder: string;
}

/** The page envelope of every list except webhook endpoints (spec section 2). */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/**
 * `limit` is an integer; below 1 counts as 1 and above 100 as 100 (spec section 4). Anything
 * that is not an integer, or a repeated parameter, is a 422.
 */
export function parsePageRequest(query: Request['query'], holder: string): PageRequest {
  const { limit, cursor } = query;
  // Any integer, however long (the request line bounds it at 16 KiB): beyond the bounds it only clamps.
  if (limit !== undefined && (typeof limit !== 'string' || !/^\s*[-+]?\d+\s*$/.test(limit))) {
    throw new DomainException('InvalidInput', 'limit must be an integer.', { field: 'limit', code: 'invalid_format' });
  }
  if (cursor !== undefined && typeof cursor !== 'string') {
    throw new DomainException('InvalidInput', 'cursor must be given once.', { field: 'cursor', code: 'invalid_format' });
  }
  const requested = limit === undefined ? DEFAULT_LIMIT : Number(limit);
  return { limit: Math.min(MAX_LIMIT, Math.max(1, requested)), cursor: cursor === '' ? undefined : cursor, holder };
}

/** The holder of an API key's cursors. */
function apiKeyHolder(auth: AuthContext): string {
  return `${auth.tenantId}/${auth.apiKeyId}`;
}

/** `limit` and `cursor` of the current list request, validated and clamped, bound to the caller's key. */
export const PageParams = createParamDecorator((_: unknown, context: ExecutionContext): PageRequest => {
  const request = context.switchToHttp().getRequest<ApiRequest>();
  if (!request.auth) throw new Error('PageParams used on a route without @RequireScopes');
  return parsePageRequest(request.query, apiKeyHolder(request.auth));
});
