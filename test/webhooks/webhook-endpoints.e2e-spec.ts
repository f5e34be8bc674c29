import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { Scope } from '../../src/platform/catalog/scopes.js';
import { WebhookSecretBox } from '../../src/webhooks/secrets/webhook-secret-box.js';
import { WebhookEndpoint } from '../../src/webhooks/webhook-endpoint.entity.js';
import { startApi, type TestApi } from '../support/api.js';
import { runCli } from '../support/cli.js';
import { createTenantSession, type TenantSession } from '../support/tenant-session.js';
import { stubDns } from '../support/webhooks.js';

const ERRORS = 'https://api.test.local/errors';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const PUBLIC_URL = 'https://hooks.example.com/oh';

type Json = Record<string, any>;

describe('webhook endpoints (e2e)', () => {
  let api: TestApi;
  let db: DataSource;
  let session: TenantSession;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    stubDns(api.app, {
      'hooks.example.com': ['93.184.216.34'],
      'other.example.com': ['93.184.216.35'],
      'v6only.example.com': ['2606:2800:220:1:248:1893:25c8:1946'],
      'intranet.example.com': ['10.0.0.7'],
      'metadata.example.com': ['169.254.169.254'],
    });
  });
  afterAll(() => api.close());
  beforeEach(async () => {
    session = await createTenantSession(api.app, { scopes: [Scope.WebhooksManage, Scope.FinInvoicesRead, Scope.FmVehiclesRead] });
  });

  const send = (method: 'get' | 'post' | 'patch' | 'delete', path: string, auth = session.auth, body?: unknown, idempotencyKey?: string) => {
    const req = api.http[method](path).set('Authorization', auth);
    if (idempotencyKey !== undefined) req.set('Idempotency-Key', idempotencyKey);
    return body === undefined ? req : req.send(body as object);
  };
  const create = (body: Json = {}, auth = session.auth, idempotencyKey?: string) =>
    send('post', '/v1/webhook_endpoints', auth, { name: 'ERP', url: PUBLIC_URL, event_types: ['fin.invoice.created'], ...body }, idempotencyKey);
  const created = async (body: Json = {}, auth = session.auth): Promise<Json> => {
    const res = await create(body, auth);
    expect(res.status).toBe(201);
    return res.body as Json;
  };
  const row = async (id: string) => db.getRepository(WebhookEndpoint).findOneByOrFail({ id });

  function expectProblem(res: Response, status: number, detailKey: string, type: string, members: Json = {}): void {
    expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { status, detail_key: detailKey, type: `${ERRORS}/${type}`, ...members } });
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  }

  describe('routes', () => {
    it('creates with 201, Location and the secret, and stores what it answered', async () => {
      const res = await create({ name: 'ERP invoice sync', event_types: ['fin.invoice.created', 'fin.invoice.paid'], pinned_version: '2026-05-16' });
      expect(res.status).toBe(201);
      const body = res.body as Json;
      expect(body).toEqual({
        id: expect.stringMatching(UUID),
        name: 'ERP invoice sync',
        url: PUBLIC_URL,
        event_types: ['fin.invoice.created', 'fin.invoice.paid'],
        pinned_version: '2026-05-16',
        status: 'active',
        disabled_reason: null,
        pii_enabled: false,
        api_key_id: session.keyId,
        previous_secret_expires_at: null,
        status_changed_at: expect.any(String),
        circuit: { state: 'closed', opened_at: null, next_probe_at: null, held_until: null },
        created_at: expect.any(String),
        updated_at: expect.any(String),
        secret: expect.stringMatching(SECRET),
      });
      expect(res.headers.location).toBe(`https://api.test.local/v1/webhook_endpoints/${body.id}`);
      expect(await row(body.id)).toMatchObject({
        tenantId: session.tenant.id,
        apiKeyId: session.keyId,
        name: 'ERP invoice sync',
        url: PUBLIC_URL,
        eventTypes: ['fin.invoice.created', 'fin.invoice.paid'],
        pinnedVersion: '2026-05-16',
        status: 'active',
        disabledReason: null,
        piiEnabled: false,
      });
    });

    it('stores the normalised URL and drops repeated event types', async () => {
      const body = await created({ url: 'HTTPS://Hooks.Example.com:443/a/../oh?x=1', event_types: ['fin.invoice.paid', 'fin.invoice.paid'] });
      expect(body).toMatchObject({ url: 'https://hooks.example.com/oh?x=1', event_types: ['fin.invoice.paid'] });
    });

    it('lists {data} unpaginated, newest first, and retrieves one without its secret', async () => {
      const first = await created({ name: 'one' });
      const second = await created({ name: 'two' });
      const list = await send('get', '/v1/webhook_endpoints');
      expect(list.status).toBe(200);
      expect(Object.keys(list.body)).toEqual(['data']);
      expect(list.body.data.map((endpoint: Json) => endpoint.name)).toEqual(['two', 'one']);
      const { secret: _secret, ...withoutSecret } = first;
      const get = await send('get', `/v1/webhook_endpoints/${first.id}`);
      expect(get.status).toBe(200);
      expect(get.body).toEqual(withoutSecret);
      expect(second.secret).not.toBe(first.secret);
    });

    it('changes name, url, event_types and pinned_version with PATCH (200)', async () => {
      const endpoint = await created({ pinned_version: '2026-05-16' });
      const res = await send('patch', `/v1/webhook_endpoints/${endpoint.id}`, session.auth, {
        name: 'Renamed',
        url: 'https://other.example.com/new',
        event_types: ['fm.vehicle.updated'],
        pinned_version: null,
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: endpoint.id, name: 'Renamed', url: 'https://other.example.com/new', event_types: ['fm.vehicle.updated'], pinned_version: null });
      expect(res.body.secret).toBeUndefined();
      expect(await row(endpoint.id)).toMatchObject({ name: 'Renamed', url: 'https://other.example.com/new', eventTypes: ['fm.vehicle.updated'], pinnedVersion: null });
    });

    it('refuses an empty PATCH and a null for a required member', async () => {
      const endpoint = await created();
      expectProblem(await send('patch', `/v1/webhook_endpoints/${endpoint.id}`, session.auth, {}), 422, 'errors.integrations.webhooks.validation_failed', 'validation', {
        errors: [expect.objectContaining({ code: 'no_writable_fields' })],
      });
      expectProblem(await send('patch', `/v1/webhook_endpoints/${endpoint.id}`, session.auth, { name: null }), 422, 'errors.integrations.webhooks.validation_failed', 'validation', {
        errors: [expect.objectContaining({ path: 'name', code: 'invalid_type' })],
      });
    });

    it('answers 422 invalid_input for a malformed id on every route', async () => {
      const routes: ['get' | 'post' | 'patch' | 'delete', string][] = [
        ['get', '/v1/webhook_endpoints/not-a-uuid'],
        ['patch', '/v1/webhook_endpoints/not-a-uuid'],
        ['delete', '/v1/webhook_endpoints/not-a-uuid'],
        ['post', '/v1/webhook_endpoints/not-a-uuid/rotate_secret'],
        ['post', '/v1/webhook_endpoints/not-a-uuid/pause'],
        ['post', '/v1/webhook_endpoints/not-a-uuid/resume'],
      ];
      for (const [method, path] of routes) {
        expectProblem(await send(method, path, session.auth, method === 'patch' ? { name: 'x' } : undefined), 422, 'errors.common.validation.invalid_input', 'validation');
      }
    });

    it('answers 422 unknown_field for any other body member, naming all of them', async () => {
      const res = await create({ secret: 'whsec_mine', description: 'x' });
      expectProblem(res, 422, 'errors.integrations.webhooks.unknown_field', 'validation', {
        code: 'unknown_field',
        field: 'secret',
        errors: [
          { path: 'secret', code: 'unknown_field', message: expect.any(String) },
          { path: 'description', code: 'unknown_field', message: expect.any(String) },
        ],
      });
      const endpoint = await created();
      expectProblem(await send('patch', `/v1/webhook_endpoints/${endpoint.id}`, session.auth, { status: 'paused' }), 422, 'errors.integrations.webhooks.unknown_field', 'validation', {
        field: 'status',
      });
      expectProblem(await send('post', `/v1/webhook_endpoints/${endpoint.id}/pause`, session.auth, { now: true }), 422, 'errors.integrations.webhooks.unknown_field', 'validation');
      expectProblem(await send('delete', `/v1/webhook_endpoints/${endpoint.id}`, session.auth, { reason: 'x' }), 422, 'errors.integrations.webhooks.unknown_field', 'validation', {
        field: 'reason',
      });
      expect(await db.getRepository(WebhookEndpoint).countBy({ tenantId: session.tenant.id })).toBe(1);
      expect(await row(endpoint.id)).toMatchObject({ status: 'active' });
    });

    it('answers 422 validation_failed with every other fault in errors[]', async () => {
      const res = await send('post', '/v1/webhook_endpoints', session.auth, { name: '  ', url: 42, event_types: [], pinned_version: '2020-01-01' });
      expectProblem(res, 422, 'errors.integrations.webhooks.validation_failed', 'validation');
      expect(res.body.errors.map((error: Json) => [error.path, error.code])).toEqual([
        ['name', 'required'],
        ['url', 'invalid_type'],
        ['event_types', 'min_items'],
        ['pinned_version', 'unsupported_version'],
      ]);
      expectProblem(await send('post', '/v1/webhook_endpoints', session.auth, [1]), 422, 'errors.integrations.webhooks.validation_failed', 'validation');
      const missing = await send('post', '/v1/webhook_endpoints', session.auth, {});
      expectProblem(missing, 422, 'errors.integrations.webhooks.validation_failed', 'validation');
      expect(missing.body.errors).toEqual([
        { path: 'name', code: 'required', message: 'name is required' },
        { path: 'url', code: 'required', message: 'url is required' },
        { path: 'event_types', code: 'required', message: 'event_types is required' },
      ]);
      expect(missing.body.detail).toBe('name is required; url is required; event_types is required');
      expect(await db.getRepository(WebhookEndpoint).countBy({ tenantId: session.tenant.id })).toBe(0);
    });

    it('refuses a sunset version, as the request version (410) and as pinned_version (422)', async () => {
      // The current version cannot be sunset (configuration); an older one can.
      const sunset = await startApi({ env: { API_SUNSET_VERSIONS: '2025-01-01' } });
      try {
        stubDns(sunset.app, { 'hooks.example.com': ['93.184.216.34'] });
        const create = (version: string | undefined) => {
          const req = sunset.http.post('/v1/webhook_endpoints').set('Authorization', session.auth);
          if (version) req.set('OH-Version', version);
          return req.send({ name: 'x', url: PUBLIC_URL, event_types: ['fin.invoice.created'], pinned_version: '2025-01-01' });
        };
        expectProblem(await create('2025-01-01'), 410, 'errors.platform.versioning.version_sunset', 'version-sunset');
        const pinned = await create(undefined);
        expectProblem(pinned, 422, 'errors.integrations.webhooks.validation_failed', 'validation');
        expect(pinned.body.errors).toEqual([expect.objectContaining({ path: 'pinned_version' })]);
        expect(await db.getRepository(WebhookEndpoint).countBy({ tenantId: session.tenant.id })).toBe(0);
      } finally {
        await sunset.close();
      }
    });

    it('needs int:webhooks:manage on every route, and changes nothing without it', async () => {
      const endpoint = await created();
      const before = await row(endpoint.id);
      const reader = await session.newKey([Scope.FinInvoicesRead]);
      for (const [method, path] of [
        ['get', '/v1/webhook_endpoints'],
        ['post', '/v1/webhook_endpoints'],
        ['get', `/v1/webhook_endpoints/${endpoint.id}`],
        ['patch', `/v1/webhook_endpoints/${endpoint.id}`],
        ['delete', `/v1/webhook_endpoints/${endpoint.id}`],
        ['post', `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`],
        ['post', `/v1/webhook_endpoints/${endpoint.id}/pause`],
        ['post', `/v1/webhook_endpoints/${endpoint.id}/resume`],
      ] as const) {
        expectProblem(await send(method, path, reader.auth), 403, 'errors.integrations.missing_scope', 'forbidden', { missing_scope: 'int:webhooks:manage' });
      }
      expect(await row(endpoint.id)).toEqual(before);
      expect(await db.getRepository(WebhookEndpoint).countBy({ tenantId: session.tenant.id })).toBe(1);
    });
  });

  describe('idempotency', () => {
    it('replays a create with the same Idempotency-Key, secret included, and creates once', async () => {
      const first = await create({}, session.auth, 'create-1');
      const again = await create({}, session.auth, 'create-1');
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.headers['idempotency-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(again.headers.location).toBe(first.headers.location);
      expect(await db.getRepository(WebhookEndpoint).countBy({ tenantId: session.tenant.id })).toBe(1);
      expectProblem(await create({ name: 'different' }, session.auth, 'create-1'), 409, 'errors.idempotency.body_mismatch', 'idempotency-conflict');
      expect(await db.getRepository(WebhookEndpoint).countBy({ tenantId: session.tenant.id })).toBe(1);
    });

    it('answers a repeated DELETE with the same key from storage, not with 404', async () => {
      const endpoint = await created();
      const first = await send('delete', `/v1/webhook_endpoints/${endpoint.id}`, session.auth, undefined, 'delete-1');
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ id: endpoint.id, status: 'disabled', disabled_reason: 'user_deleted' });
      const again = await send('delete', `/v1/webhook_endpoints/${endpoint.id}`, session.auth, undefined, 'delete-1');
      expect(again.status).toBe(200);
      expect(again.headers['idempotency-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expectProblem(await send('delete', `/v1/webhook_endpoints/${endpoint.id}`, session.auth, undefined, 'delete-2'), 404, 'errors.integrations.webhooks.not_found', 'not-found');
      expectProblem(await send('delete', `/v1/webhook_endpoints/${endpoint.id}`), 404, 'errors.integrations.webhooks.not_found', 'not-found');
    });

    it('replays PATCH, rotate_secret, pause and resume', async () => {
      const endpoint = await created();
      const base = `/v1/webhook_endpoints/${endpoint.id}`;
      for (const [method, path, body] of [
        ['patch', base, { name: 'n2' }],
        ['post', `${base}/rotate_secret`, undefined],
        ['post', `${base}/pause`, undefined],
        ['post', `${base}/resume`, undefined],
      ] as const) {
        const first = await send(method, path, session.auth, body, `k-${path}`);
        const again = await send(method, path, session.auth, body, `k-${path}`);
        expect([first.status, again.status, again.headers['idempotency-replayed']]).toEqual([200, 200, 'true']);
        expect(again.body).toEqual(first.body);
      }
    });
  });

  describe('ownership (spec 5.8)', () => {
    it('hides an endpoint from every other key of the company on every route, and int:* keys manage all', async () => {
      const endpoint = await created();
      const other = await session.newKey([Scope.WebhooksManage, Scope.FinInvoicesRead]);
      const all = await session.newKey([Scope.All]);
      const base = `/v1/webhook_endpoints/${endpoint.id}`;
      for (const [method, path, body] of [
        ['get', base, undefined],
        ['patch', base, { name: 'stolen' }],
        ['post', `${base}/rotate_secret`, undefined],
        ['post', `${base}/pause`, undefined],
        ['post', `${base}/resume`, undefined],
        ['delete', base, undefined],
      ] as const) {
        expectProblem(await send(method, path, other.auth, body), 404, 'errors.integrations.webhooks.not_found', 'not-found');
      }
      expect((await send('get', '/v1/webhook_endpoints', other.auth)).body).toEqual({ data: [] });
      expect(await row(endpoint.id)).toMatchObject({ name: 'ERP', status: 'active' });

      const mine = await created({ name: 'other key' }, other.auth);
      expect((await send('get', '/v1/webhook_endpoints', all.auth)).body.data.map((item: Json) => item.id)).toEqual([mine.id, endpoint.id]);
      expect((await send('patch', base, all.auth, { name: 'by admin' })).body).toMatchObject({ name: 'by admin', api_key_id: session.keyId });
      expect((await send('post', `${base}/pause`, all.auth)).status).toBe(200);
    });

    it('lets an int:* key subscribe another key’s endpoint only to types its owner can receive', async () => {
      const endpoint = await created();
      const all = await session.newKey([Scope.All]);
      const path = `/v1/webhook_endpoints/${endpoint.id}`;
      const refused = await send('patch', path, all.auth, { event_types: ['fin.invoice.created', 'hr.employee.created'] });
      expectProblem(refused, 403, 'errors.integrations.missing_scope', 'forbidden', { missing_scope: 'int:hr.employees:read' });
      expect(refused.body.detail).toMatch(/key that owns this endpoint lacks/);
      expectProblem(await send('patch', path, all.auth, { event_types: ['*'] }), 403, 'errors.integrations.missing_scope', 'forbidden', { missing_scope: 'int:*' });
      expect((await row(endpoint.id)).eventTypes).toEqual(['fin.invoice.created']);
      const allowed = await send('patch', path, all.auth, { event_types: ['fm.vehicle.created', 'fin.invoice.paid'] });
      expect(allowed.status).toBe(200);
      expect(allowed.body.event_types).toEqual(['fm.vehicle.created', 'fin.invoice.paid']);
      // Its own endpoint an int:* key subscribes to anything.
      const own = await created({}, all.auth);
      expect((await send('patch', `/v1/webhook_endpoints/${own.id}`, all.auth, { event_types: ['*'] })).status).toBe(200);
    });

    it('never shows another company’s endpoint, even to its int:* key', async () => {
      const endpoint = await created();
      const stranger = await createTenantSession(api.app, { scopes: [Scope.All] });
      expectProblem(await send('get', `/v1/webhook_endpoints/${endpoint.id}`, stranger.auth), 404, 'errors.integrations.webhooks.not_found', 'not-found');
      expect((await send('get', '/v1/webhook_endpoints', stranger.auth)).body).toEqual({ data: [] });
    });
  });

  describe('subscriptions (spec 6.2)', () => {
    it('refuses unknown types with exactly the offenders', async () => {
      const res = await create({ event_types: ['fin.invoice.created', 'fin.invoice.deleted', 'fm.vehicle.*', 'fin.invoice.deleted'] });
      expectProblem(res, 422, 'errors.integrations.webhooks.unknown_event_type', 'validation', {
        code: 'unknown_event_type',
        unknown_event_types: ['fin.invoice.deleted', 'fm.vehicle.*'],
      });
      expect(res.body.unknown_event_types).toHaveLength(2);
      expect(await db.getRepository(WebhookEndpoint).countBy({ tenantId: session.tenant.id })).toBe(0);
    });

    it('needs the read scope of each family; a write scope counts', async () => {
      expectProblem(await create({ event_types: ['hr.employee.created'] }), 403, 'errors.integrations.missing_scope', 'forbidden', { missing_scope: 'int:hr.employees:read' });
      const writer = await session.newKey([Scope.WebhooksManage, Scope.FinInvoicesWrite]);
      expect((await create({ event_types: ['fin.invoice.voided'] }, writer.auth)).status).toBe(201);
    });

    it('lists every missing scope when several are missing', async () => {
      const res = await create({ event_types: ['hr.employee.created', 'support.ticket.created', 'fin.invoice.paid'] });
      expectProblem(res, 403, 'errors.integrations.missing_scope', 'forbidden', {
        missing_scope: 'int:hr.employees:read',
        missing_scopes: ['int:hr.employees:read', 'int:support.tickets:read'],
      });
      expect(await db.getRepository(WebhookEndpoint).countBy({ tenantId: session.tenant.id })).toBe(0);
    });

    it('needs int:* for ["*"] and for types without a read endpoint', async () => {
      expectProblem(await create({ event_types: ['*'] }), 403, 'errors.integrations.missing_scope', 'forbidden', { missing_scope: 'int:*' });
      expectProblem(await create({ event_types: ['tachograph.infringement.detected'] }), 403, 'errors.integrations.missing_scope', 'forbidden', { missing_scope: 'int:*' });
      const all = await session.newKey([Scope.All]);
      expect((await create({ event_types: ['*'] }, all.auth)).body.event_types).toEqual(['*']);
      expect((await create({ event_types: ['compliance.whistleblowing_report.received', 'esign.envelope.completed'] }, all.auth)).status).toBe(201);
    });

    it('needs the identity and messaging scopes for their events', async () => {
      expectProblem(await create({ event_types: ['identity.user.created', 'messaging.message.sent'] }), 403, 'errors.integrations.missing_scope', 'forbidden', {
        missing_scopes: ['int:identity.users:read', 'int:messaging.messages:read'],
      });
      const holder = await session.newKey([Scope.WebhooksManage, Scope.IdentityUsersRead, Scope.MessagingMessagesRead]);
      expect((await create({ event_types: ['identity.user.deactivated', 'messaging.message.sent'] }, holder.auth)).status).toBe(201);
    });

    it('applies the same rules to PATCH', async () => {
      const endpoint = await created();
      const path = `/v1/webhook_endpoints/${endpoint.id}`;
      expectProblem(await send('patch', path, session.auth, { event_types: ['nope'] }), 422, 'errors.integrations.webhooks.unknown_event_type', 'validation', { unknown_event_types: ['nope'] });
      expectProblem(await send('patch', path, session.auth, { event_types: ['*'] }), 403, 'errors.integrations.missing_scope', 'forbidden');
      expectProblem(await send('patch', path, session.auth, { event_types: [] }), 422, 'errors.integrations.webhooks.validation_failed', 'validation');
      expect((await row(endpoint.id)).eventTypes).toEqual(['fin.invoice.created']);
    });
  });

  describe('URL rules (spec 6.9)', () => {
    it.each([
      ['http://hooks.example.com/oh', 'plain http'],
      ['https://user:pw@hooks.example.com/oh', 'credentials'],
      ['https://93.184.216.34/oh', 'a numeric host'],
      ['https://0x5db8d822/oh', 'a hex host'],
      ['https://[::ffff:93.184.216.34]/oh', 'an IPv4-mapped IPv6 host'],
      ['https://intranet.example.com/oh', 'a private address'],
      ['https://metadata.example.com/latest', 'link-local metadata'],
      ['https://nowhere.example.com/', 'an unresolvable name'],
      ['not a url', 'not a URL'],
    ])('refuses %s (%s) with 422 url_not_publicly_routable and stores nothing', async (url) => {
      expectProblem(await create({ url }), 422, 'errors.integrations.webhooks.url_not_publicly_routable', 'validation', { code: 'url_not_publicly_routable', field: 'url' });
      expect(await db.getRepository(WebhookEndpoint).countBy({ tenantId: session.tenant.id })).toBe(0);
    });

    it('refuses a URL that grows beyond 2,048 characters when normalised, instead of failing in the database', async () => {
      const url = `https://hooks.example.com/a${' '.repeat(1000)}b`;
      expect(url.length).toBeLessThan(2048);
      expectProblem(await create({ url }), 422, 'errors.integrations.webhooks.validation_failed', 'validation', {
        errors: [expect.objectContaining({ path: 'url', code: 'too_long' })],
      });
    });

    it('accepts a name with only AAAA records', async () => {
      expect((await create({ url: 'https://v6only.example.com/hook' })).status).toBe(201);
    });

    it('applies the rules to PATCH too', async () => {
      const endpoint = await created();
      expectProblem(await send('patch', `/v1/webhook_endpoints/${endpoint.id}`, session.auth, { url: 'https://intranet.example.com/' }), 422, 'errors.integrations.webhooks.url_not_publicly_routable', 'validation');
      expect((await row(endpoint.id)).url).toBe(PUBLIC_URL);
    });

    it('with WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOWED_CIDRS accepts http://localhost but never a numeric host', async () => {
      const dev = await startApi({ env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' } });
      try {
        const post = (url: string) => dev.http.post('/v1/webhook_endpoints').set('Authorization', session.auth).send({ name: 'dev', url, event_types: ['fin.invoice.created'] });
        expect((await post('http://localhost:4010/hook')).status).toBe(201);
        expect((await post('http://127.0.0.1:4010/hook')).body.detail_key).toBe('errors.integrations.webhooks.url_not_publicly_routable');
      } finally {
        await dev.close();
      }
    });
  });

  describe('signing secrets', () => {
    it('rotates: a new secret shown once, the previous one kept for 24 hours', async () => {
      const endpoint = await created();
      const res = await send('post', `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`);
      expect(res.status).toBe(200);
      expect(res.body.secret).toMatch(SECRET);
      expect(res.body.secret).not.toBe(endpoint.secret);
      const [{ grace_hours }] = await db.query(
        `SELECT round(extract(epoch FROM previous_secret_expires_at - clock_timestamp()) / 3600) AS grace_hours FROM webhook_endpoints WHERE id = $1`,
        [endpoint.id],
      );
      expect(Number(grace_hours)).toBe(24);
      const box = api.app.get(WebhookSecretBox);
      const stored = await row(endpoint.id);
      expect(box.signingSecrets(stored, new Date())).toEqual([res.body.secret, endpoint.secret]);
      expect(box.signingSecrets(stored, new Date(Date.now() + 25 * 3600_000))).toEqual([res.body.secret]);
      expect(res.body.previous_secret_expires_at).toBe(stored.previousSecretExpiresAt!.toISOString());
    });

    it('stamps concurrent rotations in the order they were applied: the latest answer holds the current secret, the one before it the kept one', async () => {
      const endpoint = await created();
      const answers = await Promise.all(Array.from({ length: 8 }, () => send('post', `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`)));
      for (const answer of answers) expect(answer.status).toBe(200);
      // Before: each was stamped with its transaction's start, though they waited for one another's
      // lock. (Answers show milliseconds, so two rotations within one may tie.)
      const stamp = (answer: Json) => String(answer.updated_at);
      const bodies = answers.map((answer) => answer.body as Json);
      const [current, kept] = api.app.get(WebhookSecretBox).signingSecrets(await row(endpoint.id), new Date());
      const applied = bodies.find((answer) => answer.secret === current)!;
      const before = bodies.find((answer) => answer.secret === kept)!;
      for (const other of bodies) expect(stamp(applied) >= stamp(other)).toBe(true);
      for (const other of bodies.filter((answer) => answer !== applied)) expect(stamp(before) >= stamp(other)).toBe(true);
    });

    it('never shows the secret in GET or lists, nor keeps it in a plain column (stored idempotent answers included)', async () => {
      const endpoint = (await create({}, session.auth, 'sealed-create')).body as Json;
      const rotated = (await send('post', `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, session.auth, undefined, 'sealed-rotate')).body.secret as string;
      const answers = [
        await send('get', `/v1/webhook_endpoints/${endpoint.id}`),
        await send('get', '/v1/webhook_endpoints'),
        await send('patch', `/v1/webhook_endpoints/${endpoint.id}`, session.auth, { name: 'x' }),
        await send('post', `/v1/webhook_endpoints/${endpoint.id}/pause`),
        await send('delete', `/v1/webhook_endpoints/${endpoint.id}`),
      ];
      for (const answer of answers) {
        expect(answer.text).not.toContain('whsec_');
        expect(JSON.stringify(answer.body)).not.toContain('secret"');
      }
      const [plain] = await db.query(`SELECT to_jsonb(e) AS row FROM webhook_endpoints e WHERE id = $1`, [endpoint.id]);
      const stored = await db.query(`SELECT to_jsonb(k) AS row FROM idempotency_keys k WHERE tenant_id = $1`, [session.tenant.id]);
      expect(stored).toHaveLength(2);
      const text = JSON.stringify([plain.row, ...stored.map((item: Json) => item.row)]);
      for (const secret of [endpoint.secret as string, rotated]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(secret.slice('whsec_'.length));
        expect(text).not.toContain(Buffer.from(secret).toString('hex'));
      }
      const replayed = await send('post', `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, session.auth, undefined, 'sealed-rotate');
      expect([replayed.headers['idempotency-replayed'], replayed.body.secret]).toEqual(['true', rotated]);
      expect((await create({}, session.auth, 'sealed-create')).body.secret).toBe(endpoint.secret);
    });
  });

  describe('CLI webhook:grant-pii and its withdrawal', () => {
    it('grants with {id, pii_enabled:true}; a new url or event_types withdraws it, a rename does not', async () => {
      const endpoint = await created();
      const grant = await runCli('webhook:grant-pii', '--endpoint', endpoint.id);
      expect(grant.code).toBe(0);
      expect(grant.json).toEqual({ id: endpoint.id, pii_enabled: true });
      const path = `/v1/webhook_endpoints/${endpoint.id}`;
      expect((await send('patch', path, session.auth, { name: 'renamed', url: PUBLIC_URL, event_types: ['fin.invoice.created'] })).body.pii_enabled).toBe(true);
      expect((await send('patch', path, session.auth, { url: 'https://other.example.com/x' })).body.pii_enabled).toBe(false);
      expect((await row(endpoint.id)).piiEnabled).toBe(false);
      expect((await runCli('webhook:grant-pii', '--endpoint', endpoint.id)).json).toEqual({ id: endpoint.id, pii_enabled: true });
      expect((await row(endpoint.id)).piiEnabled).toBe(true);
      expect((await send('patch', path, session.auth, { event_types: ['fin.invoice.paid'] })).body.pii_enabled).toBe(false);
      expect((await row(endpoint.id)).piiEnabled).toBe(false);
    });

    it('keeps the grant when event_types names the same types in another order or repeated: no change', async () => {
      const endpoint = await created({ event_types: ['fin.invoice.created', 'fin.invoice.paid'] });
      await runCli('webhook:grant-pii', '--endpoint', endpoint.id);
      const path = `/v1/webhook_endpoints/${endpoint.id}`;
      const granted = (await send('get', path, session.auth)).body;
      for (const eventTypes of [['fin.invoice.paid', 'fin.invoice.created'], ['fin.invoice.created', 'fin.invoice.paid', 'fin.invoice.created']]) {
        const res = await send('patch', path, session.auth, { event_types: eventTypes });
        expect(res.status).toBe(200);
        expect(res.body).toEqual(granted);
      }
      expect((await row(endpoint.id)).piiEnabled).toBe(true);
    });

    it('fails on an unknown, malformed or deleted endpoint', async () => {
      const unknown = await runCli('webhook:grant-pii', '--endpoint', '00000000-0000-4000-8000-000000000000');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/webhook endpoint 00000000-0000-4000-8000-000000000000 not found/);
      expect((await runCli('webhook:grant-pii', '--endpoint', 'nope')).code).not.toBe(0);
      const endpoint = await created();
      await send('delete', `/v1/webhook_endpoints/${endpoint.id}`);
      const res = await runCli('webhook:grant-pii', '--endpoint', endpoint.id);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/deleted/);
    });
  });
});
