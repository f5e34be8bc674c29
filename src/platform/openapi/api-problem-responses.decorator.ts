import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { PROBLEM_CONTENT_TYPE } from '../errors/problem.js';
import { ProblemDto } from './problem.dto.js';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Requested OH-Version is not supported.',
  401: 'Missing or invalid API key.',
  403: 'The API key lacks a required scope (`missing_scope`).',
  404: 'Not found for this company or key; `errors.common.tenant_not_found` when the company is inactive.',
  409: 'Conflict (idempotency or state).',
  410: 'Requested OH-Version has been sunset.',
  413: 'Request body too large.',
  422: 'Validation failed; see `detail_key`.',
  429: 'Rate limited (with Retry-After) or quota exceeded.',
};

/** Documents problem+json error responses for the given statuses. */
export function ApiProblemResponses(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: DESCRIPTIONS[status] ?? 'Error.',
        content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: `#/components/schemas/${ProblemDto.name}` } } },
      }),
    ),
  );
}
