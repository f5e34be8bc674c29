import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { AnyApiKey } from '../../platform/route-access/require-scopes.decorator.js';
import { OpenApiPublication } from '../../platform/openapi/openapi-publication.js';
import { EVENT_TYPES, EventCatalog } from '../../platform/catalog/event-types.js';
import { inlineRefs } from '../../platform/catalog/json-schema-refs.js';
import { Scope } from '../../platform/catalog/scopes.js';

export class EventTypeDto {
  @ApiProperty({ example: 'fin.invoice.created' })
  type: string;

  @ApiProperty({ example: 'A draft invoice was created. data: the Invoice.' })
  description: string;

  @ApiProperty({ enum: Object.values(Scope), example: Scope.FinInvoicesRead, description: 'The scope a key needs to subscribe an endpoint to this type (`int:*`: no read endpoint).' })
  scope: string;

  @ApiProperty({ description: 'Delivered only to endpoints that support enabled for personal data.', example: false })
  personal_data: boolean;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'JSON Schema (2020-12) of the envelope’s `data` for this type, self-contained.' })
  schema: Record<string, unknown>;
}

export class EventTypeListDto {
  @ApiProperty({ type: [EventTypeDto] })
  data: EventTypeDto[];
}

/** The event catalogue, published like Stripe's and Svix's: what an endpoint can subscribe to. */
@ApiTags('Webhook endpoints')
@Controller('v1/event_types')
export class EventTypesController {
  private listing?: EventTypeListDto;

  constructor(@Inject(OpenApiPublication) private readonly publication: OpenApiPublication) {}

  @Get()
  @AnyApiKey()
  @ApiOperation({
    summary: 'List the event types',
    description:
      'Every event type an endpoint can subscribe to, in catalogue order, with its description, the scope needed to subscribe, ' +
      'its personal-data flag and the JSON schema of its `data`. Any valid API key may read it. Not paginated. The same ' +
      'catalogue is in this document’s top-level `webhooks` map.',
  })
  @ApiOkResponse({ type: EventTypeListDto })
  list(): EventTypeListDto {
    this.listing ??= this.build();
    return this.listing;
  }

  private build(): EventTypeListDto {
    const components = (this.publication.document().components?.schemas ?? {}) as Record<string, unknown>;
    return {
      data: EVENT_TYPES.map((type) => {
        const definition = EventCatalog[type];
        return {
          type,
          description: definition.description,
          scope: definition.scope,
          personal_data: definition.personalData,
          schema: inlineRefs(definition.dataSchema, components) as Record<string, unknown>,
        };
      }),
    };
  }
}
