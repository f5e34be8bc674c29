import { ApiProperty } from '@nestjs/swagger';
import { EVENT_TYPES, EventCatalog } from '../../../platform/catalog/event-types.js';
import { EXAMPLE_OF } from '../../../platform/openapi/openapi-examples.js';
import { CURRENT_API_VERSION } from '../../../platform/versioning/api-version.js';

/**
 * An item of the events feed: the very object a webhook delivers for the event in the current
 * version. Never a test event, so never `test`.
 */
export class EventDto {
  @ApiProperty({ format: 'uuid', description: 'The event id: the `id` of every delivery of it, and their `Idempotency-Key` and `webhook-id` headers.' })
  id: string;

  @ApiProperty({ enum: EVENT_TYPES, example: 'fin.invoice.created' })
  type: string;

  @ApiProperty({ format: 'date-time', description: 'When the event was recorded with its change (the database’s clock, to the millisecond).' })
  created_at: string;

  @ApiProperty({ format: 'date', example: CURRENT_API_VERSION, description: 'The version that shapes this object: always the current one here.' })
  api_version: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The resource the event is about; the `webhooks` entry of its type gives the schema.',
    // A schema extension, which the decorator's type does not list.
    ...({ [EXAMPLE_OF]: EventCatalog['fin.invoice.created'].dataSchema } as object),
  })
  data: Record<string, unknown>;
}
