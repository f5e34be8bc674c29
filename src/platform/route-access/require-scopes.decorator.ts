import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension, ApiSecurity } from '@nestjs/swagger';
import type { Scope } from '../catalog/scopes.js';
import { ApiProblemResponses } from '../api-docs/api-problem-responses.decorator.js';

export const SCOPES_METADATA = 'integrations:required-scopes';
export const PUBLIC_METADATA = 'integrations:public';
/** An API key sent as an HTTP bearer token (not an OpenAPI `apiKey` scheme: it travels in `Authorization`). */
export const API_KEY_SECURITY = 'bearerApiKey';

/**
 * Requires an API key holding every listed scope. The global auth guard reads the metadata;
 * the same decorator writes the OpenAPI security requirement (OpenAPI 3.1 lets non-OAuth
 * schemes list role names) and the 401/403 problem responses.
 */
export function RequireScopes(...scopes: [Scope, ...Scope[]]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(SCOPES_METADATA, scopes),
    ApiSecurity(API_KEY_SECURITY, scopes),
    ApiExtension('x-required-scopes', scopes),
    ApiProblemResponses(401, 403, 404, 429),
  );
}

/**
 * Marks a route that needs no API key (specification download, health). The empty security
 * requirement is OpenAPI's "no credentials"; the document builder writes it as `security: []`.
 */
export function Public(): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(PUBLIC_METADATA, true), ApiSecurity({}));
}

/**
 * Any valid API key, whatever its scopes (the event catalogue). Written as an empty scope list,
 * so the guard still authenticates and the OpenAPI requirement is `apiKey: []`.
 */
export function AnyApiKey(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(SCOPES_METADATA, []),
    ApiSecurity(API_KEY_SECURITY, []),
    ApiExtension('x-required-scopes', []),
    ApiProblemResponses(401, 404, 429),
  );
}
