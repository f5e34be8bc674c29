import { ApiKeysService } from '../src/platform/auth/api-keys.service.js';
import { Scope } from '../src/platform/catalog/scopes.js';
import { TenantsService } from '../src/platform/tenancy/tenants.service.js';
import { startApi, type TestApi } from './support/api.js';
import { inOneWindow } from './support/rate-limit-clock.js';
import { createTenantSession, type TenantSession } from './support/tenant-session.js';
import { rawRequest } from './support/raw-http.js';
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
    ['no header', undefined, 'Bearer realm="Integrations API"'],
    ['another scheme', 'Basic abc', 'Bearer realm="Integrations API", error="invalid_token"'],
    ['a malformed key', 'Bearer oh_live_nope', 'Bearer realm="Integrations API", error="invalid_token"'],
    ['an unknown key', `Bearer oh_live_zzzzzzzzzzzz_${'A'.repeat(43)}`, 'Bearer realm="Integrations API", error="invalid_token"'],
    ['an agent-tool token', 'Bearer oht_0123456789abcdef', 'Bearer realm="Integrations API", error="invalid_token"'],
  ])('answers 401 for %s, with the RFC 6750 challenge', async (_, header, challenge) => {
    const req = api.http.get('/v1/test_events');
    const res = header ? await req.set('Authorization', header) : await req;
    expectProblem(res, 401, 'errors.integrations.unauthenticated');
    expect(res.body.type).toBe('https://api.test.local/errors/unauthorized');
    expect(res.headers['www-authenticate']).toBe(challenge);
  });

  it('refuses two Authorization headers, even when one of them is valid', async () => {
    for (const order of [
      [session.auth, 'Bearer oh_live_nope'],
      ['Bearer oh_live_nope', session.auth],
      [session.auth, session.auth],
    ]) {
      const res = await rawRequest(api.app, 'GET', '/v1/test_events', ['Host', 'localhost', 'Authorization', order[0], 'authorization', order[1]]);
      expect(res.status).toBe(401);
      const body = JSON.parse(res.body.toString('utf8'));
      expect(body.detail_key).toBe('errors.integrations.unauthenticated');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="Integrations API", error="invalid_request"');
    }
  });

  it('answers 401 for a right prefix with a wrong secret, also once the key is cached', async () => {
    expect((await api.http.get('/v1/test_events').set('Authorization', session.auth)).status).toBe(200);
    const forged = session.key.replace(/_[A-Za-z0-9]{43}$/, `_${'B'.repeat(43)}`);
    const res = await api.http.get('/v1/test_events').set('Authorization', `Bearer ${forged}`);
    expectProblem(res, 401, 'errors.integrations.unauthenticated');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="Integrations API", error="invalid_token"');
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

/**
 * Failed authentications per client address, shared by the processes through Redis. Two API
 * instances with a limit of 3 a minute, on a Redis prefix of their own so other tests' failures
 * (all from 127.0.0.1 too) do not count.
 */
describe('failed-authentication limit per client address (e2e)', () => {
  let instances: [TestApi, TestApi];
  const env = { AUTH_FAILURES_PER_MINUTE: '3', REDIS_PREFIX: `${process.env.REDIS_PREFIX}-auth-failures` };

  beforeAll(async () => {
    instances = [await startApi({ modules: [TestResourcesModule], env }), await startApi({ modules: [TestResourcesModule], env })];
  });
  afterAll(() => Promise.all(instances.map((instance) => instance.close())));

  it('answers 429 with Retry-After past the limit, counting failures at both instances, and then refuses every key but one in use there', async () => {
    const session = await createTenantSession(instances[0].app, { scopes: [Scope.FinInvoicesRead] });
    const wrong = `Bearer oh_live_zzzzzzzzzzzz_${'A'.repeat(43)}`;
    const attempt = (index: number, auth = wrong) => instances[index % 2].http.get('/v1/test_events').set('Authorization', auth);
    // The key is in use at the first instance (cached there), not at the second.
    expect((await attempt(0, session.auth)).status).toBe(200);

    // Both instances' limiter clocks stopped in one minute: the failures are counted in one window
    // however slow the machine (running, a minute's turn between them would start the count afresh).
    await inOneWindow(instances.map((instance) => instance.app), Date.UTC(2026, 4, 16, 10, 15, 15, 250), async () => {
      // Three failures, spread over both instances: each has seen at most two.
      for (const index of [0, 1, 0]) expect((await attempt(index)).status).toBe(401);
      const refused = await attempt(1);
      expect(refused.status).toBe(429);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body.detail_key).toBe('errors.platform.rate_limit.exceeded');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(refused.headers['ratelimit-policy']).toBe('"auth_failures";q=3;w=60');

      // The instance that refused now refuses the address outright, a valid key it has not cached included.
      expect((await attempt(1, session.auth)).status).toBe(429);
      // The other instance learns of the block from the shared count on its next failure, and still
      // serves the key in use there: another client's failures behind the same address (a shared
      // NAT) do not lock its holder out. That key with a wrong secret is refused as blocked.
      expect((await attempt(0)).status).toBe(429);
      expect((await attempt(0, session.auth)).status).toBe(200);
      const [prefix] = session.auth.replace('Bearer ', '').split('_').slice(2, 3);
      expect((await attempt(0, `Bearer oh_live_${prefix}_${'B'.repeat(43)}`)).status).toBe(429);
    });
  });
});
