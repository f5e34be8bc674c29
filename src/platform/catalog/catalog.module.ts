import { Module } from '@nestjs/common';
import { OpenApiModule } from '../openapi/openapi.module.js';
import { EventTypesController } from './event-types.controller.js';

/** Serves the event catalogue (`GET /v1/event_types`), its schemas taken from the published OpenAPI document. */
@Module({ imports: [OpenApiModule], controllers: [EventTypesController] })
export class CatalogModule {}
