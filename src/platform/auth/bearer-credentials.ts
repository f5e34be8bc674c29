import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import { DomainException } from '../errors/domain.exception.js';
import { type ParsedApiKey, parseApiKey } from './api-key-token.js';

const REALM = 'realm="Integrations API"';

/** A 401 whose `WWW-Authenticate` carries RFC 6750's error code (none when no credentials were sent). */
function unauthenticated(detail: string, error?: 'invalid_request' | 'invalid_token'): DomainException {
  return new DomainException('Unauthenticated', detail, {}, { 'WWW-Authenticate': error ? `Bearer ${REALM}, error="${error}"` : `Bearer ${REALM}` });
}

export const invalidToken = (detail: string): DomainException => unauthenticated(detail, 'invalid_token');

/** The token of an `Authorization: Bearer <token>` value, for API keys and agent-tool tokens alike. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer +(\S+)\s*$/i.exec(header ?? '')?.[1];
}

/** Places a key must not be sent, because proxies, browsers and logs keep URLs and custom headers. */
const MISPLACED_QUERY = ['access_token', 'api_key'];

/** How many times the request carries header `name` (lower case): Node keeps only the first of some. */
export function headerCount(request: IncomingMessage, name: string): number {
  let count = 0;
  for (let index = 0; index < request.rawHeaders.length; index += 2) if (request.rawHeaders[index].toLowerCase() === name) count += 1;
  return count;
}

/**
 * The API key of a request, taken from its one `Authorization: Bearer` header, else a 401 with
 * `WWW-Authenticate: Bearer`. Refused as `invalid_request`: two Authorization headers (Node
 * would silently keep the first), and a key offered in `X-API-Key`, `?access_token=` or
 * `?api_key=`, whatever the Authorization header says.
 */
export function bearerCredentials(request: Request): ParsedApiKey {
  if (headerCount(request, 'authorization') > 1) throw unauthenticated('Send exactly one Authorization header.', 'invalid_request');
  const query = request.url.includes('?') ? (request.query as Record<string, unknown>) : {};
  if (request.headers['x-api-key'] !== undefined || MISPLACED_QUERY.some((name) => query[name] !== undefined)) {
    throw unauthenticated('Send the API key only as "Authorization: Bearer oh_live_…", never in X-API-Key or the query string.', 'invalid_request');
  }
  const header = request.headers.authorization;
  if (header === undefined) throw unauthenticated('Send an API key as "Authorization: Bearer oh_live_…".');
  const token = bearerToken(header);
  if (!token) throw invalidToken('Send an API key as "Authorization: Bearer oh_live_…".');
  if (token.startsWith('oht_')) throw invalidToken('Agent-tool tokens are accepted only by the tool server.');
  const parsed = parseApiKey(token);
  if (!parsed) throw invalidToken('The API key is malformed.');
  return parsed;
}
