import { Module } from '@nestjs/common';
import { OpenApiController } from './openapi.controller.js';
import { OpenApiPublication } from './openapi-publication.js';

/** Serves the OpenAPI document (`GET /v1/openapi.json`), published once at start by `publishOpenApi`. */
@Module({ controllers: [OpenApiController], providers: [OpenApiPublication], exports: [OpenApiPublication] })
export class OpenApiModule {}
