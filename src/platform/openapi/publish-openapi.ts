import type { INestApplication } from '@nestjs/common';
import { SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
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
  // Swagger UI's page names its files relative to its address, and chooses the form by whether the
  // URL ends in a slash, query included: served at /docs/index.html or /docs/?…, it named
  // /docs/docs/… and showed a blank page. Those addresses are sent to /docs (a relative Location,
  // right behind a proxy that serves the API under a path too).
  app.use(`/${DOCS_PATH}/`, (request: Request, response: Response, next: NextFunction) => {
    const [path, query] = splitQuery(request.originalUrl);
    if ((path === `/${DOCS_PATH}/` && query !== '') || path === `/${DOCS_PATH}/index.html`) return response.redirect(301, `../${DOCS_PATH}${query}`);
    next();
  });
  SwaggerModule.setup(DOCS_PATH, app, () => publication.document(), {
    raw: false,
    customSiteTitle: 'Integrations API',
    swaggerOptions: { defaultModelsExpandDepth: 0, persistAuthorization: true },
  });
}

/** A URL's path and its query with the `?` (empty when it has none). */
function splitQuery(url: string): [string, string] {
  const at = url.indexOf('?');
  return at === -1 ? [url, ''] : [url.slice(0, at), url.slice(at)];
}
