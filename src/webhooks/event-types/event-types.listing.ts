import { Inject, Injectable } from '@nestjs/common';
import { EVENT_TYPES, EventCatalog } from '../../platform/catalog/event-types.js';
import { inlineRefs } from '../../platform/catalog/json-schema-refs.js';
import { OpenApiPublication } from '../../platform/openapi/openapi-publication.js';
import type { EventTypeListDto } from './event-types.dto.js';

/**
 * The event catalogue as subscribers read it, each type's data schema made self-contained from
 * the published OpenAPI document's components. Built at the first request, once the document is
 * published, and kept: the catalogue changes only with the code.
 */
@Injectable()
export class EventTypesListing {
  private listing?: EventTypeListDto;

  constructor(@Inject(OpenApiPublication) private readonly publication: OpenApiPublication) {}

  all(): EventTypeListDto {
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
      next_cursor: null,
      has_more: false,
    };
  }
}
