import { Module } from '@nestjs/common';
import { OpenApiController } from './openapi.controller.js';
import { OpenApiPublication } from './openapi-publication.js';
import { ProblemTypesController } from './problem-types.controller.js';

/**
 * Serves the OpenAPI document (`GET /v1/openapi.json`), published once at start by `publishOpenApi`,
 * and the pages the problem `type` URLs name (`GET /errors/{type}`).
 */
@Module({ controllers: [OpenApiController, ProblemTypesController], providers: [OpenApiPublication], exports: [OpenApiPublication] })
export class OpenApiModule {}
