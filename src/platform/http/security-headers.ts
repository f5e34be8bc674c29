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
  // The headers are the same on every answer of a kind: helmet runs once per kind, and each
  // request gets its result, instead of a dozen middlewares deciding again.
  const apiHeaders = dataSecurityHeaders();
  const docsHeaders = headersOf(docs);
  return (request, response, next) => {
    for (const [name, value] of isDocsPath(request.path) ? docsHeaders : apiHeaders) response.setHeader(name, value);
    response.removeHeader('X-Powered-By');
    next();
  };
}

/** helmet's headers for answers that are data, never a page (the REST API's, the agent-tool server's): nothing may load or frame them. */
export function dataSecurityHeaders(): [string, string][] {
  return headersOf(helmet({ contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } } }));
}

/** What a helmet middleware writes, captured on a stand-in response. */
function headersOf(middleware: Middleware): [string, string][] {
  const headers = new Map<string, string>();
  const response = {
    setHeader: (name: string, value: string | number | readonly string[]) => headers.set(name, String(value)),
    removeHeader: (name: string) => headers.delete(name),
  };
  let done = false;
  middleware({} as Request, response as unknown as Response, () => (done = true));
  if (!done) throw new Error('helmet did not finish synchronously');
  return [...headers];
}
