import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { Errors, RESOURCE_KEY, resourceErrors } from '../src/platform/catalog/errors.js';
import { isUnversionedPath } from '../src/platform/versioning/api-version.js';
import { startApi, type TestApi } from './support/api.js';
import { rawRequest } from './support/raw-http.js';
import { TestResourcesModule } from './support/test-resources.module.js';

const run = promisify(execFile);
const TRACE_ID = /^[\da-f]{32}$/;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

type Json = Record<string, any>;

function operations(document: Json): { method: string; path: string; operation: Json }[] {
  return Object.entries(document.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ method, path, operation: item[method] as Json })),
  );
}

describe('OpenAPI document (e2e)', () => {
  let api: TestApi;
  let document: Json;

  beforeAll(async () => {
    api = await startApi({ modules: [TestResourcesModule] });
    document = JSON.parse((await rawRequest(api.app, 'GET', '/v1/openapi.json')).body.toString('utf8'));
  });
  afterAll(() => api.close());

  describe('content', () => {
    it('is OpenAPI 3.1 with servers from PUBLIC_BASE_URL and conventions in its description', () => {
      expect(document.openapi).toBe('3.1.0');
      expect(document.servers).toEqual([{ url: 'https://api.test.local' }]);
      expect(document.info.version).toBe('2026-05-16');
      for (const phrase of ['_minor', 'RFC 3339', 'x-trace-id', 'OH-Version', 'https://api.test.local/errors']) {
        expect(document.info.description).toContain(phrase);
      }
    });

    it('describes the bearer API-key scheme and the oh_live_ key format', () => {
      expect(Object.keys(document.components.securitySchemes)).toEqual(['bearerApiKey']);
      expect(document.components.securitySchemes.bearerApiKey).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'oh_live_<prefix>_<secret>' });
    });

    it('includes every mounted controller (test routes too) and the problem type pages, but not the health probes', () => {
      // Every route express mounts, `:id` written as OpenAPI's `{id}`; feature modules add theirs.
      const stack = (api.app.getHttpAdapter().getInstance() as { router: { stack: { route?: { path: string } }[] } }).router.stack;
      const mounted = new Set(stack.flatMap(({ route }) => (route ? [route.path.replace(/:(\w+)/g, '{$1}')] : [])));
      expect([...mounted]).toEqual(expect.arrayContaining(['/healthz', '/readyz', '/v1/openapi.json', '/v1/test_events', '/v1/test_events/{id}', '/v1/test_failure', '/v1/invoices/{id}/void']));
      expect(Object.keys(document.paths).sort()).toEqual([...mounted].filter((path) => path.startsWith('/v1/') || path.startsWith('/errors')).sort());
    });

    it('documents the Idempotency-Key header and its 409 on @Idempotent() operations only', () => {
      const post = document.paths['/v1/test_events'].post;
      expect(post.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }));
      // What is not kept, as the interceptor behind the guards and the body parser does it: refusals before the operation runs.
      const key = post.parameters.find((parameter: { name: string }) => parameter.name === 'Idempotency-Key');
      expect(key.description).toMatch(/a 5xx is never kept, nor a refusal before the operation runs \(authentication, the key lacking the route's scope, a body that is not JSON/);
      expect(post.responses['409'].description).toMatch(/errors\.idempotency\.body_mismatch.*in_progress.*replay_unavailable/s);
      expect(document.paths['/v1/test_events'].get.parameters).not.toContainEqual(expect.objectContaining({ name: 'Idempotency-Key' }));
    });

    it('promises Idempotency-Replayed only on operations that take an Idempotency-Key', () => {
      const promising: string[] = [];
      for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
        for (const [method, operation] of Object.entries(item)) {
          const takesKey = (operation.parameters ?? []).some((parameter: any) => parameter.name === 'Idempotency-Key');
          for (const [status, response] of Object.entries(operation.responses ?? {}) as [string, any][]) {
            if (!takesKey && response.headers?.['Idempotency-Replayed']) promising.push(`${method} ${path} ${status}`);
          }
        }
      }
      // Before: the deliveries list and retrieve shared their controller's 403 and 429 with its replay POSTs.
      expect(promising).toEqual([]);
    });

    it('lists the windows of a named rate limit', () => {
      expect(document.paths['/v1/test_rate_limits/replay_failed'].get['x-rate-limit']).toEqual([
        { name: 'webhook_replay_failed', limit: 5, window_seconds: 60 },
        { name: 'webhook_replay_failed_hourly', limit: 30, window_seconds: 3600 },
      ]);
    });

    it('lists the scopes of protected operations and no security for public ones', () => {
      expect(document.paths['/v1/test_events'].get.security).toEqual([{ bearerApiKey: ['int:fin.invoices:read'] }]);
      expect(document.paths['/v1/test_events'].post.security).toEqual([{ bearerApiKey: ['int:fin.invoices:write'] }]);
      expect(document.paths['/v1/openapi.json'].get.security).toEqual([]);
    });

    it('puts the OH-Version header parameter on every operation except the specification download and the problem type pages', () => {
      expect(document.components.parameters.OhVersion).toMatchObject({ name: 'OH-Version', in: 'header', required: false });
      expect(document.components.parameters.OhVersion.description).toMatch(/2026-05-16.*400.*410/s);
      for (const { path, operation } of operations(document)) {
        if (isUnversionedPath(path)) {
          expect(operation.parameters ?? []).not.toContainEqual({ $ref: '#/components/parameters/OhVersion' });
          expect(operation.responses['400'].description).not.toContain('unsupported_version');
          expect(operation.responses['200'].headers['OH-Version']).toBeUndefined();
        } else {
          expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/OhVersion' });
        }
      }
    });

    it('answers every error response with the Problem schema, and documents 400, 410, 417, 500, 501 and 503 on every versioned operation', () => {
      expect(Object.keys(document.components.schemas.ProblemDto.properties)).toEqual(
        expect.arrayContaining(['type', 'title', 'status', 'detail', 'detail_key', 'errors', 'missing_scope']),
      );
      let errorResponses = 0;
      for (const { path, operation } of operations(document)) {
        const pipeline = isUnversionedPath(path) ? ['400', '417', '431', '500', '501'] : ['400', '410', '417', '431', '500', '501', '503'];
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(pipeline));
        // Node's parser refuses a malformed request on any path, before anything else runs.
        expect(operation.responses['400'].description).toContain('`errors.common.malformed_request`');
        expect(operation.responses['417'].description).toContain('`errors.common.expectation_failed`');
        expect(operation.responses['501'].description).toContain('`errors.common.transfer_coding_not_implemented`');
        for (const [status, response] of Object.entries(operation.responses as Json)) {
          expect(response.headers['x-trace-id']).toEqual({ $ref: '#/components/headers/TraceId' });
          if (Number(status) < 400) continue;
          errorResponses += 1;
          expect(Object.keys(response.content)).toEqual(['application/problem+json']);
          expect(response.content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/ProblemDto' });
        }
      }
      expect(errorResponses).toBeGreaterThan(20);
      expect(Object.keys(document.paths['/v1/test_events'].post.responses)).toEqual(expect.arrayContaining(['413', '422']));
    });

    it('documents the 422 every operation gives a query parameter repeated or in brackets, those without parameters too', async () => {
      for (const [path, item] of Object.entries(document.paths as Json)) {
        for (const [method, operation] of Object.entries(item as Json)) expect([path, method, Object.keys((operation as Json).responses)]).toEqual([path, method, expect.arrayContaining(['422'])]);
      }
      expect(document.paths['/v1/event_types'].get.responses['422'].description).toMatch(/given twice or with brackets/);
      const repeated = await api.http.get('/v1/openapi.json?a=1&a=2');
      expect(repeated.status).toBe(422);
      expect(repeated.body).toMatchObject({ detail_key: 'errors.common.validation.invalid_input', field: 'a' });
    });
  });

  describe('for generators and readers', () => {
    const ops = () => operations(document).filter(({ path }) => !path.startsWith('/v1/test_'));

    it('types ProblemDto.status as integer and documents supported_versions', () => {
      const problem = document.components.schemas.ProblemDto.properties;
      expect(problem.status.type).toBe('integer');
      expect(problem.supported_versions).toMatchObject({ type: 'array', items: { type: 'string' } });
    });

    it('documents 405 (with Allow) on every operation and 415 on every operation that takes a body', () => {
      for (const { method, operation } of operations(document)) {
        expect(operation.responses['405'].headers.Allow).toBeDefined();
        if (['post', 'put', 'patch', 'delete'].includes(method)) expect(operation.responses['415'].description).toMatch(/unsupported_media_type/);
      }
    });

    it('documents RateLimit, RateLimit-Policy, Retry-After, Idempotency-Replayed and OH-Version on errors', () => {
      const headers = document.components.headers;
      for (const name of ['RateLimit', 'RateLimitPolicy', 'RetryAfter', 'IdempotencyReplayed', 'OhVersion']) expect(headers[name].description).toBeTruthy();
      for (const { path, operation } of ops()) {
        if (operation.security.length === 0) continue;
        const ok = Object.entries(operation.responses as Json).find(([status]) => /^2/.test(status))![1];
        expect(ok.headers).toMatchObject({ RateLimit: { $ref: '#/components/headers/RateLimit' }, 'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' } });
        expect(operation.responses['429'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' });
        expect(operation.responses['503'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' });
        expect(operation.responses['404'].headers['OH-Version']).toEqual({ $ref: '#/components/headers/OhVersion' });
        expect(operation.responses['401'].headers.RateLimit).toBeUndefined();
        const idempotent = (operation.parameters ?? []).some((parameter: Json) => parameter.name === 'Idempotency-Key');
        expect(ok.headers['Idempotency-Replayed'] !== undefined).toBe(idempotent);
        expect(path).toMatch(/^\/v1\//);
      }
    });

    it('gives every operation realistic media-type examples: no placeholder UUIDs, no 2^53-1 amounts', () => {
      for (const { operation } of ops()) {
        const ok = Object.entries(operation.responses as Json).find(([status]) => /^2/.test(status))![1];
        expect(ok.content['application/json'].example).toBeDefined();
        if (operation.requestBody) {
          const media = operation.requestBody.content['application/json'];
          expect(media.example ?? media.examples).toBeDefined();
        }
        for (const [status, response] of Object.entries(operation.responses as Json)) {
          if (Number(status) >= 400) expect(response.content['application/problem+json'].example).toMatchObject({ status: Number(status) });
        }
      }
      const text = JSON.stringify(document.paths);
      expect(text).not.toMatch(/3fa85f64-5717-4562-b3fc-2c963f66afa6|00000000-0000-0000-0000-000000000000/);
      const amounts = [...text.matchAll(/"(\w+_minor)":(\d+)/g)].map(([, , value]) => Number(value));
      expect(amounts.length).toBeGreaterThan(10);
      expect(amounts).not.toContain(2 ** 53 - 1);
    });

    it('writes the times of its examples as the API sends them: UTC to the millisecond', () => {
      const answers = JSON.stringify([ops().map(({ operation }) => operation.responses), document.webhooks, document.components.schemas]);
      const times = [...answers.matchAll(/"(\d{4}-\d\d-\d\dT[^"]*)"/g)].map(([, time]) => time);
      expect(times.length).toBeGreaterThan(20);
      expect(times.filter((time) => new Date(time).toISOString() !== time)).toEqual([]);
    });

    it("types each error answer's problem as a real answer is typed: under ERRORS_BASE_URL, the type of its detail_key", () => {
      const types = new Map([...Object.values(Errors), ...['invoices', 'vehicles', 'leave_requests'].flatMap((name) => Object.values(resourceErrors(name)))].map((entry) => [entry.detailKey, entry.type]));
      for (const { operation } of ops()) {
        for (const [status, response] of Object.entries(operation.responses as Json)) {
          if (Number(status) < 400) continue;
          const { detail_key: key, type } = response.content['application/problem+json'].example;
          if (types.has(key)) expect([key, type]).toEqual([key, `${api.config.errorsBaseUrl}/${types.get(key)}`]);
          else expect(type).toMatch(new RegExp(`^${api.config.errorsBaseUrl}/[a-z-]+$`));
        }
      }
      // A 422 that is only the refused query string comes before authentication: no rate-limit headers.
      expect(Object.keys(document.paths['/v1/event_types'].get.responses['422'].headers)).not.toContain('RateLimit');
      expect(Object.keys(document.paths['/v1/invoices'].post.responses['422'].headers)).toContain('RateLimit');
      // Before, a few hard-coded examples (and the problem schema's own) named another host.
      expect(document.components.schemas.ProblemDto.properties.type.example).toBe(`${api.config.errorsBaseUrl}/validation`);
      expect(JSON.stringify(document)).not.toMatch(/api\.example\.com\/errors|\{errors_url\}/);
    });

    it('shows on each error answer a problem that answer can be: a detail_key its description names, never an admin or tool-server key', () => {
      for (const { operation } of ops()) {
        for (const [status, response] of Object.entries(operation.responses as Json)) {
          if (Number(status) < 400) continue;
          const { detail_key: key } = response.content['application/problem+json'].example;
          expect(key).not.toMatch(/^errors\.(admin|mcp)\./);
          const ofResources = [...(response.description as string).matchAll(RESOURCE_KEY)].flatMap(([, name]) => Object.values(resourceErrors(name)));
          const ofStatus = new Set([...Object.values(Errors), ...ofResources].filter((entry) => entry.status === Number(status)).map((entry) => entry.detailKey));
          const named = [...(response.description as string).matchAll(/`(errors\.[\w.]+)`/g)].map(([, name]) => name).filter((name) => ofStatus.has(name));
          if (named.length > 0) expect([status, named]).toEqual([status, expect.arrayContaining([key])]);
        }
      }
      // A read resource's own keys: its retrieve's 404, its list's unreadable cursor.
      for (const name of ['invoices', 'vehicles', 'leave_requests']) {
        const { notFound, invalidCursor } = resourceErrors(name);
        const retrieve = document.paths[`/v1/${name}/{id}`].get.responses;
        expect(retrieve['404'].content['application/problem+json'].example).toMatchObject({ detail_key: notFound.detailKey, code: 'not_found', title: notFound.title });
        expect(retrieve['422'].description).toContain('`errors.common.validation.invalid_input`');
        expect(document.paths[`/v1/${name}`].get.responses['422'].description).toContain(`\`${invalidCursor.detailKey}\``);
      }
      const create = document.paths['/v1/invoices'].post.responses;
      expect(create['409'].content['application/problem+json'].example).toMatchObject({ detail_key: 'errors.idempotency.body_mismatch', type: expect.stringMatching(/\/idempotency-conflict$/) });
      expect(document.paths['/v1/invoices'].get.responses['400'].content['application/problem+json'].example.detail_key).toBe('errors.platform.versioning.unsupported_version');
      // A created invoice is a draft: no number, not issued, not voided.
      expect(create['201'].content['application/json'].example).toMatchObject({ status: 'draft', number: null, issued_at: null, voided_at: null });
    });

    it('names every detail_key the API and the agent-tool server answer with, each on the operations that give it', () => {
      const text = JSON.stringify(document);
      const unnamed = Object.values(Errors).filter((entry) => !entry.detailKey.startsWith('errors.admin.') && !text.includes(`\`${entry.detailKey}\``));
      expect(unnamed.map((entry) => entry.detailKey)).toEqual([]);
      const invoiceWrites = [document.paths['/v1/invoices'].post, document.paths['/v1/invoices/{id}'].patch, document.paths['/v1/invoices/{id}/void'].post];
      for (const key of ['InvoiceInvalidBody', 'InvoiceValidationFailed'] as const) {
        for (const operation of invoiceWrites) expect(operation.responses['422'].description).toContain(`\`${Errors[key].detailKey}\``);
      }
      // A body that is not JSON is no JSON object either: the invoice operations' own key (spec 7), not malformed_json.
      for (const operation of invoiceWrites) expect(operation.responses['422'].description).toMatch(/body that is not JSON[^`]*before authentication[^`]*`errors\.integrations\.invoices\.invalid_body`|`errors\.integrations\.invoices\.invalid_body` \(also a body that is not JSON, refused before authentication\)/);
      for (const operation of invoiceWrites.slice(1)) expect(operation.responses['404'].description).toContain('`errors.integrations.invoices.not_found`');
      const deliveries = '/v1/webhook_endpoints/{id}/deliveries';
      for (const operation of [document.paths[deliveries].get, document.paths[`${deliveries}/replay_failed`].post, document.paths[`${deliveries}/{delivery_id}`].get]) {
        expect(operation.responses['404'].description).toContain(`\`${Errors.WebhookEndpointNotFound.detailKey}\``);
      }
      const replay = document.paths[`${deliveries}/{delivery_id}/replay`].post.responses;
      expect(replay['403'].description).toContain(`\`${Errors.WebhookPiiNotGranted.detailKey}\``);
      for (const key of ['WebhookDeliveryPending', 'WebhookEndpointNotActive', 'IdempotencyBodyMismatch'] as const) expect(replay['409'].description).toContain(`\`${Errors[key].detailKey}\``);
      expect(document.paths[`${deliveries}/replay_failed`].post.responses['409'].description).toContain(`\`${Errors.WebhookEndpointNotActive.detailKey}\``);
    });

    it('closes every request body schema, nested lines included: the DTO refuses members it does not declare', () => {
      const schemas = document.components.schemas;
      for (const name of ['CreateInvoiceDto', 'CreateInvoiceLineDto', 'UpdateInvoiceDto', 'VoidInvoiceDto', 'CreateWebhookEndpointDto', 'UpdateWebhookEndpointDto', 'TestEventDto']) {
        expect([name, schemas[name].additionalProperties]).toEqual([name, false]);
      }
      expect(schemas.InvoiceDto.additionalProperties).toBeUndefined();
      // What the DTO accepts, the schema does too: null for an optional line member, and a URL WHATWG reads but RFC 3986 does not.
      const line = schemas.CreateInvoiceLineDto.properties;
      for (const member of ['tax_rate', 'product_id', 'tax_rate_id']) expect([member, line[member].type]).toEqual([member, expect.arrayContaining(['null'])]);
      expect(schemas.CreateWebhookEndpointDto.properties.url.format).toBeUndefined();
    });

    it('types whole numbers as integer', () => {
      const schemas = document.components.schemas;
      expect(schemas.ReplayFailedResultDto.properties.enqueued.type).toBe('integer');
      expect(schemas.WebhookDeliveryAttemptDto.properties.duration_ms.type).toBe('integer');
      expect(schemas.WebhookDeliveryDto.properties.attempt.type).toBe('integer');
      expect(schemas.WebhookDeliveryDto.properties.last_response_status.type).toEqual(['integer', 'null']);
      expect(schemas.WebhookDeliveryAttemptDto.properties.response_status.type).toEqual(['integer', 'null']);
    });

    it('names every operation resource.verb, uniquely', () => {
      const ids = operations(document).map(({ operation }) => operation.operationId as string);
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]*(\.[a-z][A-Za-z]*)+$/);
      expect(document.paths['/v1/invoices/{id}'].get.operationId).toBe('invoices.retrieve');
      expect(document.paths['/v1/vehicles/{id}'].get.operationId).toBe('vehicles.retrieve');
      expect(document.paths['/v1/invoices/{id}/void'].post.operationId).toBe('invoices.void');
    });

    it('declares every tag it uses with a description, and describes every 2xx', () => {
      const webhookCalls = Object.values((document.webhooks ?? {}) as Json).flatMap((item: Json) => Object.values(item) as Json[]);
      const used = new Set([...operations(document).map(({ operation }) => operation), ...webhookCalls].flatMap((operation) => operation.tags ?? []));
      const declared = new Map((document.tags as Json[]).map((tag) => [tag.name, tag.description]));
      // The test-only controllers' tags (Test…) need none.
      for (const tag of used) if (!tag.startsWith('Test')) expect([tag, declared.get(tag)]).toEqual([tag, expect.any(String)]);
      expect([...declared.keys()].sort()).toEqual([...used].sort());
      for (const { operation } of operations(document)) {
        for (const [status, response] of Object.entries(operation.responses as Json)) if (/^2/.test(status)) expect(response.description).toBeTruthy();
      }
    });

    it('shows each operation its scope in the description Swagger UI renders', () => {
      for (const { operation } of operations(document)) {
        const scopes = operation['x-required-scopes'];
        if (scopes) expect(operation.description).toContain(scopes.length ? `**Required scope:** \`${scopes[0]}\`` : '**Required scope:** none; any valid API key.');
      }
    });

    it('says in the limit schema what the server does with values out of range', () => {
      const limit = document.paths['/v1/invoices'].get.parameters.find((parameter: Json) => parameter.name === 'limit');
      expect(limit.schema.description).toMatch(/below 1 the server uses 1, above 100 it uses 100/);
      expect(limit.schema.maximum).toBeUndefined();
    });

    it('documents the subscriber routes with their scopes, filters, examples and every error they answer', () => {
      const documented = (path: string, method: string) => {
        const operation = document.paths[path][method];
        return { operation, statuses: Object.keys(operation.responses).map(Number), parameters: (operation.parameters as Json[]).map((parameter) => parameter.name) };
      };
      const feed = documented('/v1/events', 'get');
      expect(feed.operation['x-required-scopes']).toEqual([]);
      expect(feed.parameters).toEqual(expect.arrayContaining(['types', 'since', 'limit', 'cursor']));
      expect(feed.statuses).toEqual(expect.arrayContaining([200, 401, 422, 429]));
      expect(feed.operation.responses['422'].content['application/problem+json'].example).toMatchObject({ code: 'unknown_event_type' });
      expect(feed.operation.responses['422'].description).toContain('errors.integrations.events.invalid_cursor');
      expect(documented('/v1/events/{id}', 'get').statuses).toEqual(expect.arrayContaining([200, 401, 404, 422]));
      // An item as the feed lists it: never a test event, with its type's data.
      const [item] = feed.operation.responses['200'].content['application/json'].example.data;
      expect(item).not.toHaveProperty('test');
      expect(item).toMatchObject({ type: 'fin.invoice.created', data: { status: 'draft', total_minor: 21420 } });
      expect(document.components.schemas.EventDto.properties).not.toHaveProperty('test');

      const testEvents = documented('/v1/webhook_endpoints/{id}/test_events', 'post');
      expect(testEvents.operation['x-required-scopes']).toEqual(['int:webhooks:manage']);
      expect(testEvents.statuses).toEqual(expect.arrayContaining([202, 401, 403, 404, 409, 422, 429]));
      expect(testEvents.operation.requestBody.required).toBe(false);
      expect(testEvents.operation.responses['422'].content['application/problem+json'].example).toMatchObject({ code: 'event_type_not_subscribed' });
      expect(testEvents.operation.responses['403'].description).toContain('pii_not_granted');
      expect(testEvents.operation.responses['409'].description).toContain('endpoint_not_active');

      const retry = documented('/v1/webhook_endpoints/{id}/deliveries/{delivery_id}/retry', 'post');
      expect(retry.statuses).toEqual(expect.arrayContaining([202, 404, 409, 422, 429]));
      expect(retry.operation.responses['409'].description).toContain('errors.integrations.webhooks.delivery_not_pending');
      // What replay and replay_failed answer: an unknown delivery, a body member, a bad since.
      const replay = documented('/v1/webhook_endpoints/{id}/deliveries/{delivery_id}/replay', 'post');
      expect(replay.operation.responses['404'].description).toContain('errors.integrations.webhooks.delivery_not_found');
      expect(replay.operation.responses['422'].description).toContain('errors.integrations.webhooks.unknown_field');
      const replayFailed = documented('/v1/webhook_endpoints/{id}/deliveries/replay_failed', 'post');
      expect(replayFailed.operation.responses['422'].description).toMatch(/invalid_since.*unknown_field/);
      expect(documented('/v1/webhook_endpoints/{id}/deliveries', 'get').parameters).toEqual(expect.arrayContaining(['status', 'event_type', 'since']));

      expect(document.components.schemas.WebhookEvent.properties.test).toMatchObject({ const: true });
    });

    it('names its licence', () => {
      expect(document.info.license).toEqual({ name: 'Proprietary', identifier: 'LicenseRef-Proprietary' });
    });
  });

  describe('delivery', () => {
    it('needs no key and serves the same bytes every time with a strong ETag of those bytes', async () => {
      const first = await rawRequest(api.app, 'GET', '/v1/openapi.json', { 'Accept-Encoding': 'identity' });
      const second = await rawRequest(api.app, 'GET', '/v1/openapi.json');
      expect(first.status).toBe(200);
      expect(first.headers['content-type']).toMatch(/^application\/json/);
      expect(first.headers['content-encoding']).toBeUndefined();
      expect(first.headers['cache-control']).toBe('public, max-age=300');
      expect(first.headers.vary).toBe('Accept-Encoding');
      expect(first.headers['x-trace-id']).toMatch(TRACE_ID);
      expect(second.body.equals(first.body)).toBe(true);
      expect(second.headers.etag).toBe(first.headers.etag);
      expect(first.headers.etag).toBe(`"${createHash('sha256').update(first.body).digest('base64url')}"`);
      expect(Number(first.headers['content-length'])).toBe(first.body.length);
    });

    it('gzips when the request accepts it, with its own strong ETag', async () => {
      const plain = await rawRequest(api.app, 'GET', '/v1/openapi.json');
      for (const accept of ['gzip', 'gzip, deflate, br', 'br;q=1, gzip;q=0.5', '*']) {
        const zipped = await rawRequest(api.app, 'GET', '/v1/openapi.json', { 'Accept-Encoding': accept });
        expect(zipped.headers['content-encoding']).toBe('gzip');
        expect(zipped.headers.vary).toBe('Accept-Encoding');
        expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
        expect(zipped.headers.etag).toBe(plain.headers.etag!.replace(/"$/, '-gzip"'));
      }
      for (const accept of ['identity', 'gzip;q=0', 'br']) {
        const res = await rawRequest(api.app, 'GET', '/v1/openapi.json', { 'Accept-Encoding': accept });
        expect(res.headers['content-encoding']).toBeUndefined();
        expect(res.body.equals(plain.body)).toBe(true);
      }
    });

    it('answers 304 with no body to a matching If-None-Match, trace id included', async () => {
      const plain = await rawRequest(api.app, 'GET', '/v1/openapi.json');
      const zipped = await rawRequest(api.app, 'GET', '/v1/openapi.json', { 'Accept-Encoding': 'gzip' });
      const etag = plain.headers.etag!;
      for (const [header, encoding] of [
        [etag, 'identity'],
        [zipped.headers.etag!, 'gzip'],
        [`W/${etag}`, 'identity'],
        [`"something-else", ${etag}`, 'identity'],
        ['*', 'identity'],
      ]) {
        const res = await rawRequest(api.app, 'GET', '/v1/openapi.json', { 'If-None-Match': header, 'Accept-Encoding': encoding });
        expect(res.status).toBe(304);
        expect(res.body.length).toBe(0);
        expect(res.headers['x-trace-id']).toMatch(TRACE_ID);
        expect(res.headers.etag).toBe(encoding === 'gzip' ? zipped.headers.etag : etag);
        expect(res.headers['cache-control']).toBe('public, max-age=300');
      }
    });

    it('answers 200 when If-None-Match names another version', async () => {
      const res = await rawRequest(api.app, 'GET', '/v1/openapi.json', { 'If-None-Match': '"outdated"' });
      expect(res.status).toBe(200);
      expect(res.body.length).toBeGreaterThan(1000);
    });

    // Before: 304 with the chosen encoding's tag, which no cache holding the other could use.
    it("answers 200 when If-None-Match names the other encoding's tag: a 304 is for the representation chosen", async () => {
      const plain = await rawRequest(api.app, 'GET', '/v1/openapi.json');
      const zipped = await rawRequest(api.app, 'GET', '/v1/openapi.json', { 'Accept-Encoding': 'gzip' });
      const cases: [string, string, string][] = [
        [plain.headers.etag!, 'gzip', zipped.headers.etag!],
        [zipped.headers.etag!, 'identity', plain.headers.etag!],
      ];
      for (const [header, encoding, etag] of cases) {
        const res = await rawRequest(api.app, 'GET', '/v1/openapi.json', { 'If-None-Match': header, 'Accept-Encoding': encoding });
        expect([res.status, res.headers.etag]).toEqual([200, etag]);
      }
    });

    it('serves Swagger UI at /docs without a key', async () => {
      const res = await api.http.get('/docs');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('swagger-ui');
      expect(res.headers['x-trace-id']).toMatch(TRACE_ID);
    });

    it('serves Swagger UI whole at each of its addresses: the page at /docs and /docs/, the others sent to /docs', async () => {
      for (const address of ['/docs', '/docs/']) {
        const page = await api.http.get(address);
        expect(page.status).toBe(200);
        const files = [...page.text.matchAll(/<(?:script src|link rel="stylesheet" type="text\/css" href)="([^"]+)"/g)].map(([, file]) => new URL(file, `http://x${address}`).pathname);
        expect(files).toContain('/docs/swagger-ui-bundle.js');
        for (const file of files) expect((await api.http.get(file)).status).toBe(200);
      }
      // Before: 200 with a page naming /docs/docs/swagger-ui-bundle.js, a 404: blank.
      for (const [address, location] of [['/docs/index.html', '../docs'], ['/docs/?deepLinking=1', '../docs?deepLinking=1']]) {
        const moved = await api.http.get(address).redirects(0);
        expect([moved.status, moved.headers.location]).toEqual([301, location]);
      }
    });

    it('keeps the authorization of /docs across reloads', async () => {
      const init = await api.http.get('/docs/swagger-ui-init.js');
      expect(init.text).toMatch(/"persistAuthorization":\s*true/);
    });
  });

  describe('export script (dist/openapi-export.js)', () => {
    const script = join(process.cwd(), 'dist/openapi-export.js');

    it('writes the document the production API serves, without a database', async () => {
      const production = await startApi();
      try {
        const served = JSON.parse((await rawRequest(production.app, 'GET', '/v1/openapi.json')).body.toString('utf8'));
        const target = join(await mkdtemp(join(tmpdir(), 'openapi-')), 'openapi.json');
        await run(process.execPath, [script, target], {
          env: { ...process.env, PUBLIC_BASE_URL: 'https://api.test.local', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/unreachable', REDIS_URL: 'redis://127.0.0.1:1' },
        });
        expect(JSON.parse(await readFile(target, 'utf8'))).toEqual(served);
      } finally {
        await production.close();
      }
    });

    it("states the receiver's timeout and the attempts from the configuration, not from constants", async () => {
      expect(document.info.description).toContain('Answer 2xx within 15 seconds; anything else is retried up to 8 attempts in all');
      const target = join(await mkdtemp(join(tmpdir(), 'openapi-')), 'openapi.json');
      await run(process.execPath, [script, target], { env: { ...process.env, WEBHOOK_TIMEOUT_MS: '4500' } });
      const exported = JSON.parse(await readFile(target, 'utf8'));
      expect(exported.info.description).toContain('Answer 2xx within 4.5 seconds; anything else is retried up to 8 attempts in all');
      expect(exported.webhooks['fin.invoice.created'].post.responses['200'].description).toBe('Received. Any 2xx within 4.5 seconds counts as delivered.');
    });

    it('refuses to run without an output path', async () => {
      await expect(run(process.execPath, [script])).rejects.toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('usage') });
    });
  });
});
