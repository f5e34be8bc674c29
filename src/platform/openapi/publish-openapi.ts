import type { INestApplication } from '@nestjs/common';
import { SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '../config/app-config.js';
import { DOCS_PATH } from '../api-docs/docs-path.js';
import { buildOpenApiDocument } from './openapi-document.js';
import { OpenApiPublication } from './openapi-publication.js';

/**
 * Publishes the document of every controller of `app` at `/v1/openapi.json` and as Swagger UI
 * at `/docs` (the UI's own JSON/YAML copies are off: the specification has one address), built
 * once, on its first request (OpenApiPublication). Call before `app.init()`, so the UI routes
 * precede Nest's not-found handler.
 */
export function publishOpenApi(app: INestApplication, config: AppConfig, featureTags: Readonly<Record<string, string>>): void {
  const publication = app.get(OpenApiPublication);
  publication.publish(() => buildOpenApiDocument(app, config, featureTags));
  SwaggerModule.setup(DOCS_PATH, app, () => publication.document(), {
    raw: false,
    customSiteTitle: 'Integrations API',
    swaggerOptions: { defaultModelsExpandDepth: 0, persistAuthorization: true },
  });
}
