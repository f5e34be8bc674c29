import type { INestApplication } from '@nestjs/common';
import { SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '../config/app-config.js';
import { DOCS_PATH } from '../api-docs/docs-path.js';
import { buildOpenApiDocument } from './openapi-document.js';
import { OpenApiPublication } from './openapi-publication.js';

/**
 * Builds the document once from every controller of `app` and publishes it at
 * `/v1/openapi.json` and as Swagger UI at `/docs` (the UI's own JSON/YAML copies are off: the
 * specification has one address). Call before `app.init()`, so the UI routes precede Nest's
 * not-found handler.
 */
export function publishOpenApi(app: INestApplication, config: AppConfig, featureTags: Readonly<Record<string, string>>): void {
  const document = buildOpenApiDocument(app, config, featureTags);
  app.get(OpenApiPublication).publish(document);
  SwaggerModule.setup(DOCS_PATH, app, document, {
    raw: false,
    customSiteTitle: 'Integrations API',
    swaggerOptions: { defaultModelsExpandDepth: 0, persistAuthorization: true },
  });
}
