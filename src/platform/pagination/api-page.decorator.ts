import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiQuery, getSchemaPath } from '@nestjs/swagger';
import { ApiProblemResponses } from '../api-docs/api-problem-responses.decorator.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from './page.js';

/** Documents a paginated list: `limit`/`cursor` query parameters and the page envelope of `item`. */
export function ApiPaginatedResponse(item: Type<unknown>, description: string): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(item),
    ApiQuery({
      name: 'limit',
      required: false,
      // No minimum/maximum: the server accepts any integer and clamps it, so a client must not refuse 0 or 500.
      schema: {
        type: 'integer',
        default: DEFAULT_LIMIT,
        example: 20,
        description: `Page size. Any integer is accepted: below 1 the server uses 1, above ${MAX_LIMIT} it uses ${MAX_LIMIT}. Not an integer, or given twice: 422 \`invalid_input\`.`,
      },
      description: `Page size, 1-${MAX_LIMIT} (default ${DEFAULT_LIMIT}); below 1 counts as 1, above ${MAX_LIMIT} as ${MAX_LIMIT}.`,
    }),
    ApiQuery({
      name: 'cursor',
      required: false,
      schema: { type: 'string' },
      description: 'The `next_cursor` of the previous page, passed back unchanged.',
    }),
    ApiOkResponse({
      description,
      schema: {
        type: 'object',
        required: ['data', 'next_cursor', 'has_more'],
        properties: {
          data: { type: 'array', items: { $ref: getSchemaPath(item) } },
          next_cursor: { type: ['string', 'null'], description: 'Opaque; null on the last page.' },
          has_more: {
            type: 'boolean',
            description: 'Whether more items follow. A page may hold fewer than `limit` items and still have more (a page of invoices or of events ends early at about 1 MB of lines or events): follow `has_more`, not the count.',
          },
        },
      },
    }),
    ApiProblemResponses(422),
  );
}
