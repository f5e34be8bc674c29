import { applyDecorators, Get, type Type } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { RequireScopes } from '../route-access/require-scopes.decorator.js';
import type { Scope } from '../catalog/scopes.js';
import { ApiProblem, detailKey } from '../api-docs/api-problem-responses.decorator.js';
import { resourceErrors } from '../catalog/errors.js';
import { ApiPaginatedResponse } from '../pagination/api-page.decorator.js';

/** `GET /` of the readable resource `name`: scope, page envelope of `item`, newest first, its own cursor key. */
export function ListRoute(name: string, scope: Scope, item: Type<unknown>, summary: string): MethodDecorator {
  return applyDecorators(
    // First, so that its account of the answer comes before the general one (and names the example).
    ApiProblem(
      422,
      `\`${resourceErrors(name).invalidCursor.detailKey}\` (a cursor not from this list, this company and this key, or altered), ` +
        `${detailKey('InvalidInput')} (\`limit\` not an integer, or a parameter given twice).`,
    ),
    Get(),
    RequireScopes(scope),
    ApiOperation({ summary, description: 'Newest first (creation time to the microsecond, then id). No filters or sort options.' }),
    ApiPaginatedResponse(item, summary),
  );
}

/** `GET /:id` of the readable resource `name`: scope, the item, its own 404 key when not in this company. */
export function RetrieveRoute(name: string, scope: Scope, item: Type<unknown>, summary: string): MethodDecorator {
  return applyDecorators(
    ApiProblem(404, `\`${resourceErrors(name).notFound.detailKey}\` (code \`not_found\`): no such id in this company.`),
    ApiProblem(422, `${detailKey('InvalidInput')}: the id is not a UUID.`),
    Get(':id'),
    RequireScopes(scope),
    ApiOperation({ summary }),
    ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } }),
    ApiOkResponse({ type: item }),
  );
}
