import { isDocsPath, isProblemTypesPath } from '../api-docs/docs-path.js';
import { DomainException } from '../errors/domain.exception.js';

/** The current API version (spec section 9). */
export const CURRENT_API_VERSION = '2026-05-16';

/** Every version this build serves. A request without `OH-Version` is served the current one. */
export const SUPPORTED_API_VERSIONS: readonly string[] = [CURRENT_API_VERSION];

export const VERSION_HEADER = 'OH-Version';

/**
 * Paths outside the versioned API, where `OH-Version` is neither checked nor answered: the
 * specification download (spec section 4 lists OH-Version for every operation except it), the
 * health probes and the documentation pages. With one trailing slash too, as express routes them.
 */
export function isUnversionedPath(path: string): boolean {
  const route = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return route === '/v1/openapi.json' || route === '/healthz' || route === '/readyz' || isDocsPath(route) || isProblemTypesPath(route);
}

/**
 * The version a request is served: absent → current; sunset → 410; anything else not
 * supported → 400.
 */
export function resolveApiVersion(requested: string | string[] | undefined, sunset: readonly string[]): string {
  if (requested === undefined) return CURRENT_API_VERSION;
  const value = Array.isArray(requested) ? requested.join(',') : requested.trim();
  if (sunset.includes(value)) {
    throw new DomainException('VersionSunset', `API version ${value} has been sunset; use ${CURRENT_API_VERSION}.`, { field: VERSION_HEADER });
  }
  if (!SUPPORTED_API_VERSIONS.includes(value)) {
    throw new DomainException('UnsupportedVersion', `API version ${JSON.stringify(value).slice(0, 40)} is not supported; use ${CURRENT_API_VERSION}.`, {
      field: VERSION_HEADER,
      supported_versions: [...SUPPORTED_API_VERSIONS],
    });
  }
  return value;
}
