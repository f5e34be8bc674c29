import { applyDecorators, Get, type Type } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { RequireScopes } from '../route-access/require-scopes.decorator.js';
import type { Scope } from '../catalog/scopes.js';
import { ApiProblemResponses } from '../api-docs/api-problem-responses.decorator.js';
import { ApiPaginatedResponse } from '../pagination/api-page.decorator.js';

/** `GET /` of a readable resource: scope, page envelope of `item`, newest first. */
export function ListRoute(scope: Scope, item: Type<unknown>, summary: string): MethodDecorator {
  return applyDecorators(
    Get(),
    RequireScopes(scope),
    ApiOperation({ summary, description: 'Newest first (creation time to the microsecond, then id). No filters or sort options.' }),
    ApiPaginatedResponse(item, summary),
  );
}

/** `GET /:id` of a readable resource: scope, the item, 404 when not in this company. */
export function RetrieveRoute(scope: Scope, item: Type<unknown>, summary: string): MethodDecorator {
  return applyDecorators(
    Get(':id'),
    RequireScopes(scope),
    ApiOperation({ summary }),
    ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } }),
    ApiOkResponse({ type: item }),
    ApiProblemResponses(422),
  );
}
