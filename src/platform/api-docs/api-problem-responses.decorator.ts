import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { Errors, type ErrorName } from '../catalog/errors.js';
import { PROBLEM_CONTENT_TYPE } from '../errors/problem.js';
import { ERRORS_URL, ProblemDto } from './problem.dto.js';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Requested OH-Version is not supported.',
  401:
    `\`${Errors.Unauthenticated.detailKey}\`: a missing or invalid API key, two Authorization headers, or a key offered in X-API-Key, ` +
    '?access_token= or ?api_key= (refused whatever else the request carries).',
  403: 'The API key lacks a required scope (`missing_scope`).',
  404: 'Not found for this company or key; `errors.common.tenant_not_found` when the company is inactive.',
  409: 'Conflict (idempotency or state).',
  410: 'Requested OH-Version has been sunset.',
  413: 'Request body too large.',
  422: 'Validation failed; see `detail_key`.',
  429:
    'Rate limited (with Retry-After) or quota exceeded; also too many failed authentications from this client address ' +
    '(AUTH_FAILURES_PER_MINUTE, default 30 a minute), refused until the minute is over, whatever key is sent.',
};

/** Response headers a problem of this status carries. */
const HEADERS: Record<number, Record<string, { description: string; schema: { type: 'string' } }>> = {
  401: {
    'WWW-Authenticate': {
      description:
        'RFC 6750 challenge: `Bearer realm="Integrations API"`, with `error="invalid_token"` for a key that is malformed, ' +
        'unknown, revoked, expired or deleted, and `error="invalid_request"` for two Authorization headers or a misplaced key.',
      schema: { type: 'string' },
    },
  },
};

/** Documents problem+json error responses for the given statuses. */
export function ApiProblemResponses(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Error.',
        ...(HEADERS[status] ? { headers: HEADERS[status] } : {}),
        content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: `#/components/schemas/${ProblemDto.name}` } } },
      }),
    ),
  );
}

/**
 * One problem response with the route's own account of it (which keys, when), and an example body
 * whose `type` is its `detail_key`'s, from the catalogue.
 */
export function ApiProblem(status: number, description: string, example?: Record<string, unknown>): MethodDecorator & ClassDecorator {
  const definition = example && Object.values(Errors).find((entry) => entry.detailKey === example.detail_key);
  if (example && !definition) throw new Error(`The example of a ${status} names no catalogued detail_key: ${String(example.detail_key)}`);
  const typed = example && { type: `${ERRORS_URL}/${definition!.type}`, ...example };
  return ApiResponse({
    status,
    description,
    content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: `#/components/schemas/${ProblemDto.name}` }, ...(typed ? { example: typed } : {}) } },
  });
}

/** A catalogue entry's detail key as the documents quote it: `errors.…`, in backticks. */
export function detailKey(name: ErrorName): string {
  return `\`${Errors[name].detailKey}\``;
}
