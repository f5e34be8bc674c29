import { Errors, PROBLEM_TYPES } from '../src/platform/catalog/errors.js';
import { startApi, type TestApi } from './support/api.js';

describe('problem type pages (e2e)', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  /** The path of a problem's `type` URL on this server. */
  const pathOf = (type: string) => {
    expect(type.startsWith(`${api.config.errorsBaseUrl}/`)).toBe(true);
    return new URL(type).pathname;
  };

  it.each([
    ['a request without a key', '/v1/invoices', 'errors.integrations.unauthenticated'],
    ['an unknown route', '/v1/nothing-here', 'errors.common.route_not_found'],
  ])('answers the type URL of %s with the type and its detail keys, without a key', async (_, path, key) => {
    const problem = await api.http.get(path);
    expect(problem.body.detail_key).toBe(key);

    const res = await api.http.get(pathOf(problem.body.type)).set('Accept', 'application/json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers.vary).toMatch(/Accept/);
    expect(res.body).toMatchObject({ type: problem.body.type, title: expect.any(String), description: expect.any(String) });
    expect(res.body.detail_keys).toContainEqual(expect.objectContaining({ detail_key: key, status: problem.status, title: problem.body.title }));
  });

  it('answers a browser with an HTML page under the API content security policy', async () => {
    const res = await api.http.get('/errors/validation').set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.text).toContain('<h1>Validation failed</h1>');
    expect(res.text).toContain(Errors.InvoiceLineInvalid.detailKey);
    // The resources' own keys, each of them.
    expect(res.text).toContain('errors.integrations.leave_requests.invalid_cursor');
  });

  it('lists every problem type, each API detail key under its own type once, and not the admin CLI keys', async () => {
    const res = await api.http.get('/errors');
    expect(res.status).toBe(200);
    const types: { type: string; detail_keys: { detail_key: string; status: number }[] }[] = res.body.data;
    expect(types.map((entry) => new URL(entry.type).pathname)).toEqual(Object.keys(PROBLEM_TYPES).map((slug) => `/errors/${slug}`));
    const listed = types.flatMap((entry) => entry.detail_keys.map((key) => key.detail_key));
    expect(new Set(listed).size).toBe(listed.length);
    for (const definition of Object.values(Errors)) {
      if (definition.detailKey.startsWith('errors.admin.')) expect(listed).not.toContain(definition.detailKey);
      else expect(types.find((entry) => entry.type.endsWith(`/${definition.type}`))?.detail_keys).toContainEqual(expect.objectContaining({ detail_key: definition.detailKey, status: definition.status }));
    }
    // Each readable resource's own keys, as its operations name them: the keys a client meets, not a pattern.
    const document = (await api.http.get('/v1/openapi.json')).body;
    const resources = Object.keys(document.paths).flatMap((path) => /^\/v1\/(\w+)\/\{id\}$/.exec(path)?.[1] ?? []).filter((name) => document.paths[`/v1/${name}/{id}`].get?.responses['404']?.description.includes(`errors.integrations.${name}.not_found`));
    expect(resources).toEqual(expect.arrayContaining(['invoices', 'vehicles', 'leave_requests', 'tickets']));
    for (const name of resources) expect(listed).toEqual(expect.arrayContaining([`errors.integrations.${name}.invalid_cursor`, `errors.integrations.${name}.not_found`]));
    expect(listed.filter((key) => key.includes('<'))).toEqual([]);
    // Only keys some answer carries: the webhooks' not_found is catalogued, and they have no invalid_cursor of that form.
    expect(listed).not.toContain('errors.integrations.webhooks.invalid_cursor');
  });

  it.each(['no-such-type', '__proto__', 'constructor'])('answers an unknown type %s with a 404 problem', async (slug) => {
    const res = await api.http.get(`/errors/${slug}`);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.detail_key).toBe(Errors.RouteNotFound.detailKey);
  });

  it('documents both routes in the OpenAPI document', async () => {
    const paths = (await api.http.get('/v1/openapi.json')).body.paths;
    expect(paths['/errors'].get.security).toEqual([]);
    const parameter = paths['/errors/{type}'].get.parameters.find((entry: { name?: string }) => entry.name === 'type');
    expect(parameter.schema.enum).toEqual(Object.keys(PROBLEM_TYPES));
  });
});
