import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { API_KEY_SECURITY } from '../route-access/require-scopes.decorator.js';
import { Errors } from '../catalog/errors.js';
import type { AppConfig } from '../config/app-config.js';
import { PROBLEM_CONTENT_TYPE } from '../errors/problem.js';
import { BODY_LIMIT } from '../http/http-pipeline.js';
import { TRACE_HEADER } from '../tracing/trace-id.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../pagination/page.js';
import { CURRENT_API_VERSION, isUnversionedPath, SUPPORTED_API_VERSIONS, VERSION_HEADER } from '../versioning/api-version.js';
import { addEventWebhooks, deliveryAttempts, deliveryTimeout } from './event-webhooks.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_REPLAYED_HEADER } from '../idempotency/idempotency.interceptor.js';
import { exampleFor, problemExample } from './openapi-examples.js';
import { operationIdFor } from './openapi-operation-ids.js';
import { declareTags } from './openapi-tags.js';
import { ERRORS_URL, ProblemDto } from '../api-docs/problem.dto.js';

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;
type Responses = Operation['responses'];
type HeaderObject = NonNullable<NonNullable<OpenAPIObject['components']>['headers']>[string];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);
const PROBLEM_REF = `#/components/schemas/${ProblemDto.name}`;

function description(config: AppConfig): string {
  return `Machine-to-machine REST API over one company's (tenant's) finance, fleet, HR, support and document data, with draft invoice writes and signed webhook events.

## Authentication
Send \`Authorization: Bearer oh_live_<prefix>_<secret>\`: an API key of one company, created with a set of scopes. Each operation names the scopes it needs in its \`${API_KEY_SECURITY}\` security requirement (and in \`x-required-scopes\`). A missing or invalid key gives 401; a missing scope gives 403 \`${Errors.MissingScope.detailKey}\` with a \`missing_scope\` member; a key whose company is inactive gives 404 \`${Errors.TenantNotFound.detailKey}\`. Only this document (\`GET /v1/openapi.json\`) needs no key.

## Versioning
The current version is \`${CURRENT_API_VERSION}\`; supported versions: ${SUPPORTED_API_VERSIONS.map((version) => `\`${version}\``).join(', ')}. The request header \`${VERSION_HEADER}\` is optional: when it is absent the current version is served. Every response to an accepted request names the version served in its \`${VERSION_HEADER}\` response header. An unsupported value gives 400 \`${Errors.UnsupportedVersion.detailKey}\`; a version that has been sunset gives 410 \`${Errors.VersionSunset.detailKey}\`.

## Conventions
- Money is an integer amount in the currency's minor unit, in fields ending in \`_minor\`, paired with \`currency\` (ISO 4217, three upper-case letters).
- Timestamps (fields ending in \`_at\`) are RFC 3339 in UTC; calendar dates (fields ending in \`_date\`) are \`YYYY-MM-DD\`.
- Identifiers (\`id\`, \`*_id\`) are UUID strings. A malformed id in a path gives 422 \`${Errors.InvalidInput.detailKey}\`.
- Every answer of a versioned operation carries \`Cache-Control: no-store\`: it holds a company's data. Every response carries an \`${TRACE_HEADER}\` header (32 hex digits). A valid W3C \`traceparent\` request header continues the caller's trace: its trace id is used. Quote it when reporting a problem.
- Lists take \`limit\` (integer, default ${DEFAULT_LIMIT}; below 1 counts as 1, above ${MAX_LIMIT} as ${MAX_LIMIT}) and \`cursor\` (the opaque \`next_cursor\` of the previous page, passed back unchanged) and answer \`{data, next_cursor, has_more}\`, newest first (creation time to the microsecond, then id). A cursor the list did not issue gives 422 with the list's \`invalid_cursor\` key.
- POST, PATCH and DELETE accept an \`Idempotency-Key\` header: a repeat within 24 hours returns the first answer with \`Idempotency-Replayed: true\`.

## Agent-tool server
The same resources are readable by AI agents through a Model Context Protocol server on its own address (Streamable HTTP, \`POST /mcp\`; \`GET /handshake\` for versions and capabilities; REST shortcuts \`POST /tools/list\` and \`POST /tools/call\`). It takes \`Authorization: Bearer oht_<token>\` plus \`X-OH-Tenant\` (the company's slug or id) and refuses API keys; this API refuses \`oht_\` tokens with 401. A missing, unknown or revoked token, a missing or foreign tenant, or an inactive company gives 401 \`${Errors.McpUnauthenticated.detailKey}\` (this problem body, with \`WWW-Authenticate: Bearer\`). A browser \`Origin\` it does not accept gives 403 \`${Errors.McpOriginNotAllowed.detailKey}\`; a shortcut body that is not \`{name, arguments}\` with a known tool name, 422 \`${Errors.McpInvalidRequest.detailKey}\`. Each token may make ${config.MCP_RATE_LIMIT_PER_MINUTE} requests per minute (429 \`${Errors.RateLimited.detailKey}\` with \`Retry-After\`). Tools: \`list_records\`, \`get_record\`, \`search_records\`, \`recent_changes\` and \`summarise\`, whose \`resource\` (or \`area\`) argument names any list operation below (or area); \`X-MCP-Toolsets\` narrows them to areas, and \`X-MCP-Tools\` asks for per-resource tools (\`list_\`, \`get_\`, \`search_\`, \`recent_<resource>\`, \`summarise_<area>\`) by name.

## Errors
Every error is \`${PROBLEM_CONTENT_TYPE}\` (RFC 9457, schema \`${ProblemDto.name}\`) with a stable \`detail_key\`; \`type\` is a URL under \`${config.errorsBaseUrl}\` which, under the default, answers a page on the type and every \`detail_key\` it carries (\`GET /errors/{type}\`, no key). An unknown path gives 404 \`${Errors.RouteNotFound.detailKey}\`; a known path with another method gives 405 \`${Errors.MethodNotAllowed.detailKey}\` with an \`Allow\` header. A request body must be JSON of at most ${BODY_LIMIT.toUpperCase()}: a body that is not JSON (or not UTF-8) is answered as the operation answers a body that is not a JSON object (the invoice operations' \`${Errors.InvoiceInvalidBody.detailKey}\`), on an operation that takes no object 422 \`${Errors.MalformedJson.detailKey}\`, a larger body 413 \`${Errors.PayloadTooLarge.detailKey}\`. A 5xx never carries internal details.

## Receiving webhooks
Each delivery is a \`POST\` with \`Content-Type: application/json\`, a \`User-Agent\` of \`OH-Webhooks/1.0\`, and the envelope \`{id, type, created_at, api_version, data}\`: \`id\` is the event's id (equal to the \`Idempotency-Key\` and \`webhook-id\` headers, the same on every retry and replay: deduplicate on it), \`type\` the event type, \`created_at\` when the event was recorded with its change (the database's clock, to the millisecond), \`api_version\` the version that shapes the body (the endpoint's \`pinned_version\`, else the current version), \`data\` the resource as this API shows it; \`test: true\` (before \`data\`) marks a test event sent with \`POST /v1/webhook_endpoints/{id}/test_events\`. \`GET /v1/events\` lists the same objects for reconciliation. Answer 2xx within ${deliveryTimeout(config)}; anything else is retried up to ${deliveryAttempts(config)} attempts in all, except 410, which stops.

Two signatures cover the raw body, both HMAC-SHA256 keyed with the base64-decoded part of the \`whsec_\` secret:
- Standard Webhooks headers \`webhook-id\`, \`webhook-timestamp\` (Unix seconds) and \`webhook-signature\`: \`v1,<base64 HMAC of "<webhook-id>.<webhook-timestamp>.<body>">\`; any Standard Webhooks library verifies them (\`new Webhook(secret).verify(body, headers)\`).
- \`X-OH-Signature: t=<unix seconds>,v1=<hex HMAC of "<t>.<body>">\`: recompute the hex HMAC, compare in constant time with any \`v1\`, and refuse a \`t\` more than 5 minutes away.

During the 24 hours after a \`rotate_secret\`, both the new and the previous secret sign: \`webhook-signature\` carries two space-separated signatures and \`X-OH-Signature\` two \`v1\` entries; accept either. A replay is signed afresh (new timestamp) with the current secrets, as any delivery: the new one, and the previous one too during its 24 hours.`;
}

const problemResponse = (text: string) => ({ description: text, content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: PROBLEM_REF } } } });

/** Error answers the request pipeline gives on any operation, whatever its controller declares. */
const MALFORMED_REQUEST = `\`${Errors.MalformedRequest.detailKey}\`: a request Node's HTTP parser refuses (a malformed request line or header, a bad chunked body; the connection is closed), or one without a \`Host\` (HTTP/1.1) or with several`;
const PIPELINE_RESPONSES: Record<string, ReturnType<typeof problemResponse>> = {
  400: problemResponse(`\`${Errors.UnsupportedVersion.detailKey}\`: the requested ${VERSION_HEADER} is not supported; ${MALFORMED_REQUEST}.`),
  417: problemResponse(`\`${Errors.ExpectationFailed.detailKey}\`: an \`Expect\` header other than \`100-continue\`.`),
  501: problemResponse(`\`${Errors.TransferCodingNotImplemented.detailKey}\`: a \`Transfer-Encoding\` other than \`chunked\` (\`gzip, chunked\` included).`),
  410: problemResponse(`\`${Errors.VersionSunset.detailKey}\`: the requested ${VERSION_HEADER} has been sunset.`),
  408: problemResponse(`The request, headers and body, did not arrive within HTTP_REQUEST_TIMEOUT_MS (30 s by default): \`${Errors.RequestTimeout.detailKey}\`; the connection is closed.`),
  431: problemResponse(`Request headers over the server's limit (16 KiB): \`${Errors.HeadersTooLarge.detailKey}\`.`),
  500: problemResponse(`\`${Errors.Internal.detailKey}\`: an unexpected failure; the body carries no internal details. Quote the ${TRACE_HEADER} header.`),
  503: problemResponse(
    `\`${Errors.ServiceUnavailable.detailKey}\`: the database or the queue did not answer in time (a statement over DATABASE_STATEMENT_TIMEOUT_MS, 10 s by default, or no free connection), or the company's requests took their whole share of the server for as long (API_TENANT_CONCURRENCY at once per process); repeat the request after \`Retry-After\` seconds.`,
  ),
};
/** Every route reads its query string alike, those without parameters too. */
const QUERY_REFUSED = problemResponse(
  `\`${Errors.InvalidInput.detailKey}\` naming the parameter in \`field\`: a query parameter given twice or with brackets (\`a=1&a=2\`, \`a[]=1\`), answered before authentication (without rate-limit headers).`,
);
const METHOD_NOT_ALLOWED = {
  ...problemResponse(`\`${Errors.MethodNotAllowed.detailKey}\`: the path is served, but not with this method.`),
  headers: { Allow: { description: 'The methods this path serves.', schema: { type: 'string' }, example: 'GET, HEAD' } },
};
const BODY_RESPONSES: Record<string, ReturnType<typeof problemResponse>> = {
  413: problemResponse(`The request body exceeds ${BODY_LIMIT.toUpperCase()}.`),
  415: problemResponse(
    `\`${Errors.UnsupportedMediaType.detailKey}\`: a body that is not \`application/json\` or another \`application/*+json\` type (the detail names the Content-Type sent), a charset other than UTF-8 (\`utf-8\` or \`utf8\`), or a \`Content-Encoding\` other than \`gzip\` (or \`x-gzip\`), \`deflate\`, \`br\` or \`identity\`. A compressed body that is not valid data in its encoding is a 422 \`${Errors.InvalidInput.detailKey}\`.`,
  ),
  422: problemResponse(
    `Validation failed (a body that is not JSON, where the operation names no key of its own for it: \`${Errors.MalformedJson.detailKey}\`; a query parameter given twice or with brackets: \`${Errors.InvalidInput.detailKey}\`); see \`detail_key\`.`,
  ),
};

/** Statuses answered before authentication: they carry no rate-limit or idempotency headers. */
const BEFORE_AUTH = new Set(['400', '401', '405', '408', '410', '413', '415', '417', '431', '501']);
/** Statuses answered before the API version is resolved: they carry no OH-Version. */
const BEFORE_VERSION = new Set(['400', '408', '410', '417', '431', '501']);

/**
 * Adds what the platform does for every operation but no controller declares: the OH-Version
 * parameter, the pipeline's error answers (405, 415 included), the response headers (trace id,
 * OH-Version, rate limits, Retry-After, Idempotency-Replayed), `security: []` for public
 * operations (declared by `@Public()` as the empty requirement), the operationId convention,
 * the required scope in each description and media-type examples. Done here,
 * once, so every route of every module gets it without declaring it.
 */
function applyPlatformConventions(document: OpenAPIObject, config: AppConfig): OpenAPIObject {
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
  document.components.headers = { ...document.components.headers, ...responseHeaders(config) };
  const schemas = (document.components.schemas ?? {}) as Record<string, Record<string, unknown>>;
  const operationIds = new Map<string, string>();
  for (const [path, item] of Object.entries(document.paths)) {
    const versioned = !isUnversionedPath(path);
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      if (versioned) operation.parameters = [{ $ref: '#/components/parameters/OhVersion' }, ...(operation.parameters ?? [])];
      const pipeline = versioned
        ? PIPELINE_RESPONSES
        : { 400: problemResponse(`${MALFORMED_REQUEST}.`), 408: PIPELINE_RESPONSES[408], 417: PIPELINE_RESPONSES[417], 431: PIPELINE_RESPONSES[431], 500: PIPELINE_RESPONSES[500], 501: PIPELINE_RESPONSES[501] };
      const added = structuredClone({ ...pipeline, 405: METHOD_NOT_ALLOWED, 422: QUERY_REFUSED, ...(BODY_METHODS.has(method) ? BODY_RESPONSES : {}) });
      // A 422 the operation does not declare is only the refused query string, answered before authentication.
      const queryOnly422 = operation.responses?.['422'] === undefined;
      // Cloned: a controller's class-level responses are one object shared by its operations, and one
      // operation's headers (Idempotency-Replayed) would show on the others.
      operation.responses = sortResponses({ ...added, ...structuredClone(operation.responses) });
      if (operation.security?.length === 1 && Object.keys(operation.security[0]).length === 0) operation.security = [];
      const secured = (operation.security ?? []).length > 0;
      const idempotent = (operation.parameters ?? []).some((parameter) => 'name' in parameter && parameter.name === IDEMPOTENCY_KEY_HEADER);
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!response || '$ref' in response) continue;
        const afterAuth = secured && !BEFORE_AUTH.has(status) && !(status === '422' && queryOnly422);
        response.headers = {
          [TRACE_HEADER]: { $ref: '#/components/headers/TraceId' },
          ...(versioned && !BEFORE_VERSION.has(status) ? { [VERSION_HEADER]: { $ref: '#/components/headers/OhVersion' } } : {}),
          ...(afterAuth ? { RateLimit: { $ref: '#/components/headers/RateLimit' }, 'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' } } : {}),
          ...(status === '429' || status === '503' ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}),
          ...(idempotent && afterAuth && Number(status) < 500 && status !== '409' ? { [IDEMPOTENCY_REPLAYED_HEADER]: { $ref: '#/components/headers/IdempotencyReplayed' } } : {}),
          ...response.headers,
        };
        if (/^2/.test(status) && !response.description) response.description = `${operation.summary ?? 'Success'}.`;
        addExamples(response.content as Content | undefined, schemas, config, Number(status), response.description);
      }
      if (operation.requestBody && !('$ref' in operation.requestBody)) addExamples(operation.requestBody.content as Content, schemas, config);
      const scopes = (operation as Operation & { 'x-required-scopes'?: string[] })['x-required-scopes'];
      if (scopes) {
        const required = scopes.length ? scopes.map((scope) => `\`${scope}\``).join(', ') : 'none; any valid API key';
        operation.description = `**Required scope:** ${required}.${operation.description ? `\n\n${operation.description}` : ''}`;
      }
      if (!operation.operationId?.includes('.')) operation.operationId = operationIdFor(method, path);
      const other = operationIds.get(operation.operationId);
      if (other) throw new Error(`operationId ${operation.operationId} of ${method.toUpperCase()} ${path} is also that of ${other}`);
      operationIds.set(operation.operationId, `${method.toUpperCase()} ${path}`);
    }
  }
  closeRequestBodies(document, schemas);
  return document;
}

/**
 * Every request body is checked by its DTO, which refuses members it does not declare: each
 * schema a request body reaches, nested lines included, says so (`additionalProperties: false`).
 */
function closeRequestBodies(document: OpenAPIObject, schemas: Record<string, Record<string, unknown>>): void {
  const closed = new Set<string>();
  const visit = (schema: unknown): void => {
    if (!schema || typeof schema !== 'object') return;
    const ref = (schema as { $ref?: unknown }).$ref;
    if (typeof ref === 'string') {
      const name = ref.replace('#/components/schemas/', '');
      if (closed.has(name) || !schemas[name]) return;
      closed.add(name);
      schemas[name].additionalProperties = false;
      return visit(schemas[name]);
    }
    for (const value of Object.values(schema)) visit(value);
  };
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const body = item[method]?.requestBody;
      if (body && !('$ref' in body)) for (const media of Object.values(body.content)) visit(media.schema);
    }
  }
}

type Content = Record<string, { schema?: Record<string, unknown>; example?: unknown; examples?: unknown }>;

/** A media-type example for every content that has none: realistic values from the schema, or the problem the status stands for. */
function addExamples(content: Content | undefined, schemas: Record<string, Record<string, unknown>>, config: AppConfig, status?: number, description?: string): void {
  for (const [mediaType, media] of Object.entries(content ?? {})) {
    if (media.example !== undefined || media.examples !== undefined) continue;
    const example = mediaType === PROBLEM_CONTENT_TYPE && status !== undefined ? problemExample(status, config.errorsBaseUrl, description) : exampleFor(media.schema, schemas);
    if (example !== undefined) media.example = example;
  }
}

function responseHeaders(config: AppConfig): Record<string, HeaderObject> {
  return {
    TraceId: { description: 'Trace id of this request (32 hex digits); from a valid `traceparent` when one was sent.', schema: { type: 'string', pattern: '^[0-9a-f]{32}$' }, example: '4bf92f3577b34da6a3ce929d0e0e4736' },
    OhVersion: { description: 'The API version served.', schema: { type: 'string', format: 'date' }, example: CURRENT_API_VERSION },
    RateLimit: {
      description:
        'What is left of each limit that applies (IETF draft-ietf-httpapi-ratelimit-headers): `r` requests remain until the window resets in `t` seconds. ' +
        'Every answer to a request counted against the limits carries it, a 429 of one of them included: one whose key was authenticated and holds the route\'s scope. ' +
        'A 429 lists the limits counted up to the one that refused the request; those after it did not count it and are left out. ' +
        'Refusals before that carry none: 401, 403 `missing_scope` for the route, 404 `tenant_not_found`, a 429 of failed authentications, a body refused before authentication.',
      schema: { type: 'string' },
      example: `"default";r=${config.RATE_LIMIT_PER_SECOND - 1};t=1`,
    },
    RateLimitPolicy: {
      description: `The limits that apply: \`q\` requests per \`w\` seconds. The general limit is ${config.RATE_LIMIT_PER_SECOND} requests per second per API key, and ${config.TENANT_RATE_LIMIT_PER_SECOND} per second for all the keys of a company together (\`company\`); some operations add named limits (\`x-rate-limit\`).`,
      schema: { type: 'string' },
      example: `"default";q=${config.RATE_LIMIT_PER_SECOND};w=1`,
    },
    RetryAfter: { description: 'Seconds to wait before retrying (whole seconds, at least 1).', schema: { type: 'integer', minimum: 1 }, example: 1 },
    IdempotencyReplayed: {
      description:
        '`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`; absent otherwise. Only what ' +
        'the operation itself answered is stored: a refusal before it runs (authentication, the route\'s own scope check, a body ' +
        'that is not JSON) is never a replay.',
      schema: { type: 'string', enum: ['true'] },
      example: 'true',
    },
  };
}

function sortResponses(responses: Responses): Responses {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The OpenAPI 3.1 document of every controller mounted in `app`, its tags described by
 * `featureTags` (the features' manifests). Built from decorators only, so
 * it also works on an application created with `preview: true` (no database connection).
 */
export function buildOpenApiDocument(app: INestApplication, config: AppConfig, featureTags: Readonly<Record<string, string>>): OpenAPIObject {
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
  const document = SwaggerModule.createDocument(app, base, { extraModels: [ProblemDto] });
  // OpenAPI 3.1 names a licence by SPDX expression; LicenseRef- is SPDX's form for one of its own.
  document.info.license = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } as OpenAPIObject['info']['license'];
  return withErrorsUrl(declareTags(addEventWebhooks(applyPlatformConventions(document, config), config), featureTags), config.errorsBaseUrl);
}

/** The document with the examples' problem types under the configured ERRORS_BASE_URL, where real answers have them. */
function withErrorsUrl(document: OpenAPIObject, errorsBaseUrl: string): OpenAPIObject {
  return JSON.parse(JSON.stringify(document).replaceAll(ERRORS_URL, JSON.stringify(errorsBaseUrl).slice(1, -1))) as OpenAPIObject;
}
