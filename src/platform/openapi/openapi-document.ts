import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_KEY_SECURITY } from '../auth/require-scopes.decorator.js';
import { Errors } from '../catalog/errors.js';
import type { AppConfig } from '../config/app-config.js';
import { PROBLEM_CONTENT_TYPE } from '../errors/problem.js';
import { BODY_LIMIT, TRACE_HEADER } from '../http/http-pipeline.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../pagination/page.js';
import { CURRENT_API_VERSION, isUnversionedPath, SUPPORTED_API_VERSIONS, VERSION_HEADER } from '../versioning/api-version.js';
import { ProblemDto } from './problem.dto.js';

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;
type Responses = Operation['responses'];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const BODY_METHODS = new Set(['post', 'put', 'patch']);
const PROBLEM_REF = `#/components/schemas/${ProblemDto.name}`;

function description(config: AppConfig): string {
  return `Machine-to-machine REST API over one company's (tenant's) finance, fleet, HR, support and document data, with draft invoice writes and signed webhook events.

## Authentication
Send \`Authorization: Bearer oh_live_<prefix>_<secret>\`: an API key of one company, created with a set of scopes. Each operation names the scopes it needs in its \`apiKey\` security requirement (and in \`x-required-scopes\`). A missing or invalid key gives 401; a missing scope gives 403 \`${Errors.MissingScope.detailKey}\` with a \`missing_scope\` member; a key whose company is inactive gives 404 \`${Errors.TenantNotFound.detailKey}\`. Only this document (\`GET /v1/openapi.json\`) needs no key.

## Versioning
The current version is \`${CURRENT_API_VERSION}\`; supported versions: ${SUPPORTED_API_VERSIONS.map((version) => `\`${version}\``).join(', ')}. The request header \`${VERSION_HEADER}\` is optional: when it is absent the current version is served. Every response to an accepted request names the version served in its \`${VERSION_HEADER}\` response header. An unsupported value gives 400 \`${Errors.UnsupportedVersion.detailKey}\`; a version that has been sunset gives 410 \`${Errors.VersionSunset.detailKey}\`.

## Conventions
- Money is an integer amount in the currency's minor unit, in fields ending in \`_minor\`, paired with \`currency\` (ISO 4217, three upper-case letters).
- Timestamps (fields ending in \`_at\`) are RFC 3339 in UTC; calendar dates (fields ending in \`_date\`) are \`YYYY-MM-DD\`.
- Identifiers (\`id\`, \`*_id\`) are UUID strings. A malformed id in a path gives 422 \`${Errors.InvalidInput.detailKey}\`.
- Every response carries an \`${TRACE_HEADER}\` header (32 hex digits). A valid W3C \`traceparent\` request header continues the caller's trace: its trace id is used. Quote it when reporting a problem.
- Lists take \`limit\` (integer, default ${DEFAULT_LIMIT}; below 1 counts as 1, above ${MAX_LIMIT} as ${MAX_LIMIT}) and \`cursor\` (the opaque \`next_cursor\` of the previous page, passed back unchanged) and answer \`{data, next_cursor, has_more}\`, newest first (creation time to the microsecond, then id). A cursor the list did not issue gives 422 with the list's \`invalid_cursor\` key.
- POST, PATCH and DELETE accept an \`Idempotency-Key\` header: a repeat within 24 hours returns the first answer with \`Idempotency-Replayed: true\`.

## Errors
Every error is \`${PROBLEM_CONTENT_TYPE}\` (RFC 9457, schema \`${ProblemDto.name}\`) with a stable \`detail_key\`; \`type\` is a URL under \`${config.errorsBaseUrl}\`. An unknown path gives 404 \`${Errors.RouteNotFound.detailKey}\`; a known path with another method gives 405 \`${Errors.MethodNotAllowed.detailKey}\` with an \`Allow\` header. A request body must be JSON of at most ${BODY_LIMIT.toUpperCase()}: malformed JSON gives 422 \`${Errors.MalformedJson.detailKey}\`, a larger body 413 \`${Errors.PayloadTooLarge.detailKey}\`. A 5xx never carries internal details.`;
}

const problemResponse = (text: string) => ({ description: text, content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: PROBLEM_REF } } } });

/** Error answers the request pipeline gives on any operation, whatever its controller declares. */
const PIPELINE_RESPONSES: Record<string, ReturnType<typeof problemResponse>> = {
  400: problemResponse(`The requested ${VERSION_HEADER} is not supported.`),
  410: problemResponse(`The requested ${VERSION_HEADER} has been sunset.`),
  431: problemResponse(`Request headers over the server's limit (16 KiB): \`${Errors.HeadersTooLarge.detailKey}\`.`),
  500: problemResponse(`Unexpected failure; the body carries no internal details. Quote the ${TRACE_HEADER} header.`),
};
const BODY_RESPONSES: Record<string, ReturnType<typeof problemResponse>> = {
  413: problemResponse(`The request body exceeds ${BODY_LIMIT.toUpperCase()}.`),
  422: problemResponse(`Validation failed (malformed JSON: \`${Errors.MalformedJson.detailKey}\`); see \`detail_key\`.`),
};

/**
 * Adds what the platform does for every operation but no controller declares: the OH-Version
 * parameter, the pipeline's error answers, the x-trace-id and OH-Version response headers, and
 * `security: []` for public operations (declared by `@Public()` as the empty requirement).
 */
function applyPlatformConventions(document: OpenAPIObject): OpenAPIObject {
  document.components ??= {};
  document.components.parameters = {
    ...document.components.parameters,
    OhVersion: {
      name: VERSION_HEADER,
      in: 'header',
      required: false,
      description: `API version (a date). Absent: the current version ${CURRENT_API_VERSION} is served. Unsupported: 400. Sunset: 410.`,
      schema: { type: 'string', format: 'date', enum: [...SUPPORTED_API_VERSIONS], default: CURRENT_API_VERSION },
    },
  };
  document.components.headers = {
    ...document.components.headers,
    TraceId: { description: 'Trace id of this request (32 hex digits); from a valid `traceparent` when one was sent.', schema: { type: 'string', pattern: '^[0-9a-f]{32}$' } },
    OhVersion: { description: 'The API version served.', schema: { type: 'string', format: 'date' } },
  };
  for (const [path, item] of Object.entries(document.paths)) {
    const versioned = !isUnversionedPath(path);
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      if (versioned) operation.parameters = [{ $ref: '#/components/parameters/OhVersion' }, ...(operation.parameters ?? [])];
      const pipeline = versioned ? PIPELINE_RESPONSES : { 431: PIPELINE_RESPONSES[431], 500: PIPELINE_RESPONSES[500] };
      const added = structuredClone({ ...pipeline, ...(BODY_METHODS.has(method) ? BODY_RESPONSES : {}) });
      operation.responses = sortResponses({ ...added, ...operation.responses });
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!response || '$ref' in response) continue;
        response.headers = {
          [TRACE_HEADER]: { $ref: '#/components/headers/TraceId' },
          ...(versioned && Number(status) < 400 ? { [VERSION_HEADER]: { $ref: '#/components/headers/OhVersion' } } : {}),
          ...response.headers,
        };
      }
      if (operation.security?.length === 1 && Object.keys(operation.security[0]).length === 0) operation.security = [];
    }
  }
  return document;
}

function sortResponses(responses: Responses): Responses {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The OpenAPI 3.1 document of every controller mounted in `app`. Built from decorators only, so
 * it also works on an application created with `preview: true` (no database connection).
 */
export function buildOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const base = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Integrations API')
    .setVersion(CURRENT_API_VERSION)
    .setDescription(description(config))
    .addServer(config.publicBaseUrl)
    .addSecurity(API_KEY_SECURITY, {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'oh_live_<prefix>_<secret>',
      description:
        'An API key: `oh_live_` + 12-character prefix (a-z, 0-9) + `_` + 43-character secret (A-Z, a-z, 0-9). The security requirement of each operation lists the scopes it needs; `int:*` grants every scope and a write scope includes its read scope.',
    })
    .build();
  return applyPlatformConventions(SwaggerModule.createDocument(app, base, { extraModels: [ProblemDto] }));
}
