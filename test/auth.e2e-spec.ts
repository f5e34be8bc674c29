import { ApiKeysService } from '../src/platform/auth/api-keys.service.js';
import { Scope } from '../src/platform/catalog/scopes.js';
import { TenantsService } from '../src/platform/tenancy/tenants.service.js';
import { startApi, type TestApi } from './support/api.js';
import { createTenantSession, type TenantSession } from './support/tenant-session.js';
import { TestResourcesModule } from './support/test-resources.module.js';

describe('authentication and scopes (e2e)', () => {
  let api: TestApi;
  let session: TenantSession;

  beforeAll(async () => {
    api = await startApi({ modules: [TestResourcesModule] });
    session = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesRead] });
  });
  afterAll(() => api.close());

  const expectProblem = (res: { status: number; headers: Record<string, string>; body: Record<string, unknown> }, status: number, detailKey: string) => {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.status).toBe(status);
    expect(res.body.detail_key).toBe(detailKey);
    expect(typeof res.body.title).toBe('string');
    expect(typeof res.body.detail).toBe('string');
    expect(res.headers['x-trace-id']).toMatch(/^[\da-f]{32}$/);
  };

  it('accepts a valid key with the scope', async () => {
    const res = await api.http.get('/v1/test_events').set('Authorization', session.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], next_cursor: null, has_more: false });
  });

  it.each([
    ['no header', undefined],
    ['another scheme', 'Basic abc'],
    ['a malformed key', 'Bearer oh_live_nope'],
    ['an unknown key', `Bearer oh_live_zzzzzzzzzzzz_${'A'.repeat(43)}`],
    ['an agent-tool token', 'Bearer oht_0123456789abcdef'],
  ])('answers 401 for %s', async (_, header) => {
    const req = api.http.get('/v1/test_events');
    const res = header ? await req.set('Authorization', header) : await req;
    expectProblem(res, 401, 'errors.integrations.unauthenticated');
    expect(res.body.type).toBe('https://api.test.local/errors/unauthorized');
  });

  it('answers 401 for a right prefix with a wrong secret', async () => {
    const forged = session.key.replace(/_[A-Za-z0-9]{43}$/, `_${'B'.repeat(43)}`);
    expectProblem(await api.http.get('/v1/test_events').set('Authorization', `Bearer ${forged}`), 401, 'errors.integrations.unauthenticated');
  });

  it.each(['revoked', 'expired', 'deleted'] as const)('answers 401 once the key is %s', async (state) => {
    const key = await session.newKey([Scope.FinInvoicesRead]);
    expect((await api.http.get('/v1/test_events').set('Authorization', key.auth)).status).toBe(200);
    await api.app.get(ApiKeysService).changeState(key.id, state);
    expectProblem(await api.http.get('/v1/test_events').set('Authorization', key.auth), 401, 'errors.integrations.unauthenticated');
  });

  it('answers 401 for a key past its expiry date', async () => {
    const key = await session.newKey([Scope.FinInvoicesRead], { expiresAt: new Date(Date.now() - 1000) });
    expectProblem(await api.http.get('/v1/test_events').set('Authorization', key.auth), 401, 'errors.integrations.unauthenticated');
  });

  it('answers 403 missing_scope naming the scope', async () => {
    const key = await session.newKey([Scope.FinBillsRead]);
    const res = await api.http.post('/v1/test_events').set('Authorization', key.auth).send({});
    expectProblem(res, 403, 'errors.integrations.missing_scope');
    expect(res.body.missing_scope).toBe('int:fin.invoices:write');
    expect(res.body.type).toBe('https://api.test.local/errors/forbidden');
  });

  it('lets a write scope include its read scope and int:* grant all', async () => {
    const writer = await session.newKey([Scope.FinInvoicesWrite]);
    expect((await api.http.get('/v1/test_events').set('Authorization', writer.auth)).status).toBe(200);
    const all = await session.newKey([Scope.All]);
    expect((await api.http.post('/v1/test_events').set('Authorization', all.auth).send({ a: 1 })).status).toBe(201);
  });

  it('answers 404 tenant_not_found when the company is inactive', async () => {
    const other = await createTenantSession(api.app, { scopes: [Scope.All] });
    await api.app.get(TenantsService).deactivate(other.tenant.id);
    const res = await api.http.get('/v1/test_events').set('Authorization', other.auth);
    expectProblem(res, 404, 'errors.common.tenant_not_found');
    expect(res.body.type).toBe('https://api.test.local/errors/not-found');
  });
});
