import { Scope } from '../src/platform/catalog/scopes.js';
import { startApi, type TestApi } from './support/api.js';
import { createTenantSession, type TenantSession } from './support/tenant-session.js';

/** The one request-body path (`@ValidBody()`) keeps the documented order: a malformed path id before any body fault. */
describe('request-body validation (e2e)', () => {
  let api: TestApi;
  let session: TenantSession;

  beforeAll(async () => {
    api = await startApi();
    session = await createTenantSession(api.app, { scopes: [Scope.All] });
  });
  afterAll(() => api.close());

  it.each([
    ['patch', '/v1/invoices/not-a-uuid', [1]],
    ['patch', '/v1/invoices/not-a-uuid', { colour: 'red' }],
    ['post', '/v1/invoices/not-a-uuid/void', { reason: 5 }],
    ['patch', '/v1/webhook_endpoints/not-a-uuid', { colour: 'red' }],
    ['post', '/v1/webhook_endpoints/not-a-uuid/pause', { now: true }],
  ] as const)('%s %s answers invalid_input before judging the body', async (method, path, body) => {
    const res = await api.http[method](path).set('Authorization', session.auth).send(body as object);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ detail_key: 'errors.common.validation.invalid_input', field: 'id' });
  });
});
