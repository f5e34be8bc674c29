import { Module } from '@nestjs/common';
import { OpenApiModule } from '../../platform/openapi/openapi.module.js';
import { EventTypesController } from './event-types.controller.js';
import { EventTypesListing } from './event-types.listing.js';

/**
 * Serves the platform's event catalogue to webhook subscribers (`GET /v1/event_types`), its
 * schemas taken from the published OpenAPI document.
 */
@Module({ imports: [OpenApiModule], controllers: [EventTypesController], providers: [EventTypesListing] })
export class EventTypesModule {}
