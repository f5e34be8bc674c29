import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import type { AppConfig } from '../config/app-config.js';
import { isDocsPath } from '../api-docs/docs-path.js';

type Middleware = (request: Request, response: Response, next: NextFunction) => void;

/**
 * helmet's headers on every answer (`X-Content-Type-Options: nosniff`, HSTS, frame and referrer
 * policies, ...) with one of two Content-Security-Policies:
 * - API answers are data, never a page: nothing may load or frame them.
 * - Swagger UI at /docs loads its scripts, styles and fonts from this server only (it works
 *   offline), uses inline styles and data: images, and calls the API at PUBLIC_BASE_URL from
 *   "Try it out". No upgrade-insecure-requests: a development server answers plain http.
 */
export function securityHeaders(config: AppConfig): Middleware {
  const api = helmet({ contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } } });
  const docs = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'", new URL(config.publicBaseUrl).origin],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'self'"],
      },
    },
  });
  return (request, response, next) => {
    (isDocsPath(request.path) ? docs : api)(request, response, next);
  };
}
