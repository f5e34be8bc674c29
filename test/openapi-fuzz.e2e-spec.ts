import fc from 'fast-check';
import { READ_RESOURCES } from '../src/app/features.js';
import { Errors, resourceErrors } from '../src/platform/catalog/errors.js';
import { Scope } from '../src/platform/catalog/scopes.js';
import { startApi, type TestApi } from './support/api.js';
import { fuzzFailure, fuzzSettings, hostileText } from './support/fuzz.js';
import { createTenantSession, type TenantSession } from './support/tenant-session.js';

/**
 * Property-based fuzzing of every operation in the OpenAPI document the API serves, so routes
 * added later are fuzzed without touching this file. For each operation fast-check generates
 * hostile path ids, query strings, headers and bodies (starting from the documented example);
 * every answer must be below 500, and every 4xx an application/problem+json whose detail_key is
 * in the error catalogue. Fixed seed and bounded runs; `FUZZ_SEED` and `FUZZ_RUNS` override them,
 * and a failure names the seed to reproduce it with.
 */
const FUZZ = fuzzSettings({ seed: 20260516, runs: 50 });
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
// The catalogue's keys, and each registry resource's cursor and not-found keys.
const CATALOGUE = new Set(
  [...Object.values(Errors), ...READ_RESOURCES.flatMap((resource) => Object.values(resourceErrors(resource.name)))].map((error) => error.detailKey),
);

type Json = Record<string, any>;

interface FuzzRequest {
  path: string;
  query: string;
  headers: Record<string, string>;
  body?: string;
}

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 40 });
const pathValue = fc.oneof(
  fc.uuid().map(encodeURIComponent),
  hostileText.map(encodeURIComponent),
  fc.constantFrom('%', '%zz', '%E0%A4%A', '..', '%2e%2e', '%2F', 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
);
const queryPart = fc.tuple(fc.oneof(fc.constantFrom('limit', 'cursor', 'limit[]', 'cursor[0]', 'since'), printable), hostileText).map(
  ([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
);
const jsonBody = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.constant(null).map(() => JSON.parse(`{"a":${'['.repeat(200)}${']'.repeat(200)}}`)),
  fc.dictionary(fc.string({ maxLength: 10 }), fc.oneof(hostileText, fc.jsonValue({ maxDepth: 2 })), { maxKeys: 5 }),
);

/** Mutates a documented example: one member replaced by hostile JSON or removed. */
function mutatedExample(example: unknown): fc.Arbitrary<unknown> {
  if (typeof example !== 'object' || example === null || Array.isArray(example)) return fc.constant(example);
  const members = Object.keys(example);
  if (members.length === 0) return fc.constant(example);
  return fc.tuple(fc.constantFrom(...members), fc.option(fc.oneof(hostileText, fc.jsonValue({ maxDepth: 2 })), { nil: undefined })).map(([member, value]) => {
    const copy: Json = structuredClone(example);
    if (value === undefined) delete copy[member];
    else copy[member] = value;
    return copy;
  });
}

function requestArbitrary(path: string, operation: Json, auth: string): fc.Arbitrary<FuzzRequest> {
  const params = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
  const example = operation.requestBody?.content?.['application/json']?.example;
  const body = fc.oneof(
    { weight: 3, arbitrary: mutatedExample(example).map((value) => ({ type: 'application/json', text: JSON.stringify(value) ?? 'null' })) },
    { weight: 3, arbitrary: jsonBody.map((value) => ({ type: 'application/json', text: JSON.stringify(value) })) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin9', 'application/xml', ''), hostileText).map(([type, text]) => ({ type, text })) },
    { weight: 1, arbitrary: hostileText.map((text) => ({ type: 'application/json', text })) },
  );
  const headers = fc.record(
    {
      authorization: fc.oneof({ weight: 8, arbitrary: fc.constant(auth) }, { weight: 1, arbitrary: printable.map((text) => `Bearer ${text}`) }),
      'oh-version': fc.constantFrom('2026-05-16', '2020-01-01', 'latest', ''),
      'idempotency-key': printable,
      traceparent: printable,
      accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/problem+json'),
    },
    { requiredKeys: ['authorization'] },
  );
  return fc
    .record({
      values: fc.tuple(...params.map(() => pathValue)),
      query: fc.array(queryPart, { maxLength: 3 }),
      headers,
      body: operation.requestBody ? fc.option(body, { nil: undefined, freq: 5 }) : fc.constant(undefined),
    })
    .map(({ values, query, headers: chosen, body: sent }) => {
      let filled = path;
      params.forEach((name, index) => (filled = filled.replace(`{${name}}`, values[index])));
      const all: Record<string, string> = Object.fromEntries(Object.entries(chosen).filter(([, value]) => value !== undefined)) as Record<string, string>;
      if (sent?.type) all['content-type'] = sent.type;
      return { path: filled, query: query.join('&'), headers: all, body: sent?.text };
    });
}

describe('OpenAPI-driven fuzzing (e2e): no input gives a 5xx, every 4xx is a catalogued problem', () => {
  let api: TestApi;
  let session: TenantSession;
  let document: Json;

  beforeAll(async () => {
    // Hundreds of requests on one key: the general rate limit is not what this test is about.
    api = await startApi({ env: { RATE_LIMIT_PER_SECOND: '100000', TENANT_RATE_LIMIT_PER_SECOND: '100000' } });
    session = await createTenantSession(api.app, { scopes: [Scope.All], currencies: ['EUR', 'USD'] });
    document = (await api.http.get('/v1/openapi.json')).body;
  });
  afterAll(() => api.close());

  it('the document lists operations to fuzz', () => {
    expect(Object.keys(document.paths).length).toBeGreaterThan(10);
  });

  const send = async (method: string, request: FuzzRequest) => {
    let call = api.http[method as (typeof METHODS)[number]](request.query ? `${request.path}?${request.query}` : request.path);
    for (const [name, value] of Object.entries(request.headers)) call = call.set(name, value);
    return request.body === undefined ? call : call.send(request.body);
  };

  it('answers every operation below 500, with catalogued problems', async () => {
    const failures: string[] = [];
    for (const [path, item] of Object.entries(document.paths as Json)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        const failure = await fuzzFailure(
          `${method.toUpperCase()} ${path}`,
          requestArbitrary(path, operation, session.auth),
          async (request) => {
            const res = await send(method, request);
            expect(res.status).toBeLessThan(500);
            if (res.status >= 400) {
              expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
              expect(res.body.status).toBe(res.status);
              expect(CATALOGUE.has(res.body.detail_key)).toBe(true);
            }
          },
          FUZZ,
        );
        if (failure !== undefined) failures.push(failure);
      }
    }
    if (failures.length > 0) process.stderr.write(`openapi fuzz failed with seed ${FUZZ.seed}\n`);
    expect(failures).toEqual([]);
  }, 240_000);
});
