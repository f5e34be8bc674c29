import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { Scope } from '../../src/platform/catalog/scopes.js';
import { startApi, type TestApi } from '../support/api.js';
import { createEndpoint, deliveriesOf, deliveryEnv, type DeliveryFixture, publishEvents, settledDeliveries, startDeliveryFixture } from '../support/deliveries.js';
import { inOneWindow } from '../support/rate-limit-clock.js';
import { createTenantSession, type TenantSession } from '../support/tenant-session.js';
import { verifyStandard, type WebhookReceiver } from '../support/webhook-receiver.js';
import { waitFor } from '../support/wait-for.js';
import { WebhookSecretBox } from '../../src/webhooks/secrets/webhook-secret-box.js';


describe('deliveries API and replays (e2e)', () => {
  let fixture: DeliveryFixture;
  let api: TestApi;
  let receiver: WebhookReceiver;
  let db: DataSource;
  let session: TenantSession;

  beforeAll(async () => {
    // Deliveries here end with 410 on purpose; auto_410_repeat is tested elsewhere.
    fixture = await startDeliveryFixture('deliveries-api', { WEBHOOK_DISABLE_GONE_STREAK: '1000' });
    ({ api, receiver, db } = fixture);
  });
  afterAll(() => fixture.close());
  beforeEach(async () => {
    session = await createTenantSession(api.app, { scopes: [Scope.WebhooksManage, Scope.FinInvoicesRead, Scope.HrEmployeesRead] });
    receiver.respond = () => ({ status: 204 });
  });

  const owner = () => ({ tenantId: session.tenant.id, apiKeyId: session.keyId });
  const get = (path: string, auth = session.auth) => api.http.get(path).set('Authorization', auth);
  const post = (path: string, auth = session.auth) => api.http.post(path).set('Authorization', auth);

  /** An endpoint with `count` deliveries that ended failed (gone). */
  async function endpointWithFailures(path: string, count: number, values: { eventTypes?: string[]; piiEnabled?: boolean } = {}) {
    const created = await createEndpoint(api.app, owner(), { url: receiver.url(path), ...values });
    receiver.respond = (request) => (request.path === path ? { status: 410 } : { status: 204 });
    await publishEvents(api.app, session.tenant.id, values.eventTypes?.[0] === 'hr.employee.created' ? 'hr.employee.created' : 'fin.invoice.created', count);
    const rows = await settledDeliveries(api.app, created.endpoint.id, count);
    receiver.respond = () => ({ status: 204 });
    return { ...created, rows };
  }

  it('lists deliveries newest first with a cursor; an unreadable cursor gives 422 invalid_cursor', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/list') });
    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created', 3);
    const rows = await settledDeliveries(api.app, endpoint.id, 3);

    const first = await get(`/v1/webhook_endpoints/${endpoint.id}/deliveries?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.has_more).toBe(true);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.data[0]).toEqual({
      id: expect.any(String),
      endpoint_id: endpoint.id,
      event_id: expect.any(String),
      event_type: 'fin.invoice.created',
      status: 'delivered',
      attempt: 1,
      next_attempt_at: null,
      error_class: null,
      replayed_from: null,
      last_response_status: 204,
      api_version: '2026-05-16',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const second = await get(`/v1/webhook_endpoints/${endpoint.id}/deliveries?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    const listed = [...first.body.data, ...second.body.data].map((delivery: { id: string }) => delivery.id);
    expect(listed).toEqual(rows.map((row) => row.id).reverse());

    const bad = await get(`/v1/webhook_endpoints/${endpoint.id}/deliveries?cursor=garbage`);
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ detail_key: 'errors.integrations.invalid_cursor' });
  });

  it('retrieves one delivery with its attempts; other keys and unknown ids get 404, malformed ids 422', async () => {
    const { endpoint, rows } = await endpointWithFailures('/one', 1);
    const answer = await get(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${rows[0].id}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: rows[0].id, status: 'failed', error_class: 'gone', last_response_status: 410 });
    expect(answer.body.attempts).toEqual([
      { attempt: 1, started_at: expect.any(String), duration_ms: expect.any(Number), response_status: 410, error_kind: null, response_body: '' },
    ]);

    const other = await session.newKey([Scope.WebhooksManage]);
    expect((await get(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${rows[0].id}`, other.auth)).status).toBe(404);
    expect((await get(`/v1/webhook_endpoints/${endpoint.id}/deliveries`, other.auth)).status).toBe(404);
    const unknown = await get(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${endpoint.id}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail_key).toBe('errors.integrations.webhooks.delivery_not_found');
    expect((await get(`/v1/webhook_endpoints/${endpoint.id}/deliveries/nope`)).body.detail_key).toBe('errors.common.validation.invalid_input');
  });

  it('replays one delivery: 202 with a pending delivery of the same event, same body, fresh signature, replayed_from', async () => {
    const { endpoint, secret, rows } = await endpointWithFailures('/replay', 1);
    const original = receiver.requests.filter((request) => request.path === '/replay')[0];
    // Signed at the replay's time: once the original's second has passed, the signature differs.
    await waitFor(async () => Math.floor(Date.now() / 1000) > Number(original.headers['webhook-timestamp']), 3000, 'the next second');

    const answer = await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${rows[0].id}/replay`).set('Idempotency-Key', `r-${rows[0].id}`);
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ status: 'pending', attempt: 0, replayed_from: rows[0].id, event_id: rows[0].event_id });

    const replayed = await waitFor(async () => receiver.requests.filter((request) => request.path === '/replay')[1]);
    expect(replayed.body).toBe(original.body);
    expect(replayed.headers['webhook-id']).toBe(original.headers['webhook-id']);
    expect(verifyStandard(secret, replayed)).toMatchObject({ id: rows[0].event_id });
    expect(Number(replayed.headers['webhook-timestamp'])).toBeGreaterThan(Number(original.headers['webhook-timestamp']));
    expect(replayed.headers['webhook-signature']).not.toBe(original.headers['webhook-signature']);
    const settled = await settledDeliveries(api.app, endpoint.id, 2);
    expect(settled.find((row) => row.id === answer.body.id)).toMatchObject({ status: 'delivered', replayed_from: rows[0].id });
    expect(settled.find((row) => row.id === rows[0].id)).toMatchObject({ status: 'failed', error_class: 'gone' });

    // The same Idempotency-Key answers from storage and creates nothing.
    const again = await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${rows[0].id}/replay`).set('Idempotency-Key', `r-${rows[0].id}`);
    expect(again.status).toBe(202);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.body.id).toBe(answer.body.id);
    expect(await deliveriesOf(api.app, endpoint.id)).toHaveLength(2);
  });

  it('replays while the delivery gate is unreachable: 202 all the same, and the sweep offers the replay', async () => {
    const { endpoint, rows } = await endpointWithFailures('/replay-no-gate', 1);
    // A second API process on the same database whose Redis cannot be reached.
    const cut = await startApi({ env: deliveryEnv('deliveries-api-no-redis', api.config.DATABASE_URL, { REDIS_URL: 'redis://127.0.0.1:1' }) });
    try {
      const answer = await cut.http.post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${rows[0].id}/replay`).set('Authorization', session.auth);
      expect(answer.status).toBe(202);
      // The answer is read after the gate's 2 s command timeout, by when the sweep may have delivered it already.
      expect(answer.body).toMatchObject({ replayed_from: rows[0].id, event_id: rows[0].event_id });
      const settled = await settledDeliveries(api.app, endpoint.id, 2);
      expect(settled.find((row) => row.id === answer.body.id)).toMatchObject({ status: 'delivered', replayed_from: rows[0].id });
    } finally {
      await cut.close();
    }
  });

  it('refuses replays: 409 endpoint_not_active, 403 pii_not_granted, 409 delivery_pending', async () => {
    const paused = await endpointWithFailures('/replay-paused', 1);
    await db.query(`UPDATE webhook_endpoints SET status = 'paused' WHERE id = $1`, [paused.endpoint.id]);
    const notActive = await post(`/v1/webhook_endpoints/${paused.endpoint.id}/deliveries/${paused.rows[0].id}/replay`);
    expect(notActive.status).toBe(409);
    expect(notActive.body).toMatchObject({
      detail_key: 'errors.integrations.webhooks.endpoint_not_active',
      code: 'endpoint_not_active',
      detail: 'The endpoint is paused; resume it first: only an active endpoint receives deliveries.',
    });
    const bulkNotActive = await post(`/v1/webhook_endpoints/${paused.endpoint.id}/deliveries/replay_failed`);
    expect(bulkNotActive.status).toBe(409);
    expect(bulkNotActive.body).toMatchObject({ detail_key: 'errors.integrations.webhooks.endpoint_not_active', code: 'endpoint_not_active' });
    expect((await api.http.delete(`/v1/webhook_endpoints/${paused.endpoint.id}`).set('Authorization', session.auth)).status).toBe(200);
    const deleted = await post(`/v1/webhook_endpoints/${paused.endpoint.id}/deliveries/${paused.rows[0].id}/replay`);
    expect(deleted.status).toBe(409);
    expect(deleted.body).toMatchObject({ detail_key: 'errors.integrations.webhooks.endpoint_not_active', detail: 'The endpoint is disabled; it was deleted and cannot receive deliveries.' });
    // None of the refusals queued a delivery.
    expect(await deliveriesOf(api.app, paused.endpoint.id)).toHaveLength(1);

    const personal = await endpointWithFailures('/replay-pii', 1, { eventTypes: ['hr.employee.created'], piiEnabled: true });
    await db.query(`UPDATE webhook_endpoints SET pii_enabled = false WHERE id = $1`, [personal.endpoint.id]);
    const forbidden = await post(`/v1/webhook_endpoints/${personal.endpoint.id}/deliveries/${personal.rows[0].id}/replay`);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ detail_key: 'errors.integrations.webhooks.pii_not_granted', code: 'pii_not_granted' });

    const slow = await createEndpoint(api.app, owner(), { url: receiver.url('/replay-slow') });
    receiver.respond = () => ({ status: 500, delayMs: 200 });
    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
    const [pending] = await waitFor(async () => (await deliveriesOf(api.app, slow.endpoint.id)).filter((row) => row.status === 'pending').length === 1 && deliveriesOf(api.app, slow.endpoint.id));
    const conflict = await post(`/v1/webhook_endpoints/${slow.endpoint.id}/deliveries/${pending.id}/replay`);
    expect(conflict.status).toBe(409);
    expect(conflict.body.detail_key).toBe('errors.integrations.webhooks.delivery_pending');
    expect(await deliveriesOf(api.app, personal.endpoint.id)).toHaveLength(1);
    expect(await deliveriesOf(api.app, slow.endpoint.id)).toHaveLength(1);
    await db.query(`UPDATE webhook_endpoints SET status = 'paused' WHERE id = $1`, [slow.endpoint.id]);
  });

  it('replay_failed queues every failed or dead original since `since`, skipping replays and already replayed ones', async () => {
    const { endpoint, rows } = await endpointWithFailures('/bulk', 4);
    // One is older than the window, one was replayed before.
    await db.query(`UPDATE webhook_deliveries SET created_at = clock_timestamp() - interval '2 days' WHERE id = $1`, [rows[0].id]);
    const replayOne = await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${rows[1].id}/replay`);
    expect(replayOne.status).toBe(202);
    await settledDeliveries(api.app, endpoint.id, 5);

    const answer = await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed`).set('Idempotency-Key', `bulk-${endpoint.id}`);
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ enqueued: 2 });
    const after = await settledDeliveries(api.app, endpoint.id, 7);
    expect(after.filter((row) => row.replayed_from !== null).map((row) => row.replayed_from).sort()).toEqual([rows[1].id, rows[2].id, rows[3].id].sort());

    // Nothing left to replay; the idempotent repeat answers the stored 2.
    expect((await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed`)).body).toEqual({ enqueued: 0 });
    const repeat = await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed`).set('Idempotency-Key', `bulk-${endpoint.id}`);
    expect(repeat.body).toEqual({ enqueued: 2 });

    const since = new Date(Date.now() - 3 * 24 * 3600_000).toISOString();
    // The same Idempotency-Key with another since is another request (spec 8 rule 3), never the first one's answer.
    const otherSince = await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed?since=${since}`).set('Idempotency-Key', `bulk-${endpoint.id}`);
    expect(otherSince.status).toBe(409);
    expect(otherSince.body).toMatchObject({ detail_key: 'errors.idempotency.body_mismatch', title: expect.stringMatching(/different request body or query/) });
    expect((await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed?since=${since}`)).body).toEqual({ enqueued: 1 });
  });

  it('reads since to the microsecond, as deliveries are created: the list and replay_failed leave out one 356 µs older', async () => {
    const { endpoint, rows } = await endpointWithFailures('/micro', 2);
    const recent = new Date(Date.now() - 3600_000).toISOString().slice(0, 19);
    await db.query(`UPDATE webhook_deliveries SET created_at = $2 WHERE id = $1`, [rows[0].id, `${recent}.123100Z`]);
    await db.query(`UPDATE webhook_deliveries SET created_at = $2 WHERE id = $1`, [rows[1].id, `${recent}.123900Z`]);
    const since = `${recent}.123456Z`;

    const listed = await get(`/v1/webhook_endpoints/${endpoint.id}/deliveries?since=${since}`);
    expect(listed.body.data.map((delivery: { id: string }) => delivery.id)).toEqual([rows[1].id]);
    expect((await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed?since=${since}`)).body).toEqual({ enqueued: 1 });
    const replays = await db.query(`SELECT replayed_from FROM webhook_deliveries WHERE endpoint_id = $1 AND replayed_from IS NOT NULL`, [endpoint.id]);
    expect(replays).toEqual([{ replayed_from: rows[1].id }]);

    // Offsets up to ±23:59 are RFC 3339; PostgreSQL's text input takes only ±15:59.
    const far = encodeURIComponent(new Date(Date.now() + 3600_000).toISOString().replace('Z', '+23:00'));
    expect((await get(`/v1/webhook_endpoints/${endpoint.id}/deliveries?since=${far}`)).body.data.map((delivery: { id: string }) => delivery.id)).toEqual(expect.arrayContaining([rows[1].id, rows[0].id]));
    expect((await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed?since=${encodeURIComponent('2026-01-01T00:00:00-18:00')}`)).status).toBe(202);
  });

  it('refuses a body on replay_failed, replay and retry (since is a query parameter), and checks a malformed delivery id first', async () => {
    const { endpoint, rows } = await endpointWithFailures('/no-body', 1);
    const base = `/v1/webhook_endpoints/${endpoint.id}/deliveries`;
    const since = new Date(Date.now() - 3600_000).toISOString();
    for (const path of [`${base}/replay_failed`, `${base}/${rows[0].id}/replay`, `${base}/${rows[0].id}/retry`]) {
      const answer = await post(path).send({ since });
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({ detail_key: 'errors.integrations.webhooks.unknown_field', field: 'since' });
    }
    expect(await deliveriesOf(api.app, endpoint.id)).toHaveLength(1);
    const badId = await post(`${base}/not-a-uuid/replay`).send({ since });
    expect(badId.status).toBe(422);
    expect(badId.body).toMatchObject({ detail_key: 'errors.common.validation.invalid_input', field: 'delivery_id' });
  });

  // Before: GET read replay_failed as a delivery id (422), and PUT's Allow named that route's GET too.
  it('answers any method but POST on replay_failed 405 with Allow: POST, as OpenAPI matches the concrete path first', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/concrete') });
    const path = `/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed`;
    for (const answer of [await get(path), await api.http.put(path).set('Authorization', session.auth), await api.http.delete(path).set('Authorization', session.auth)]) {
      expect([answer.status, answer.headers.allow, answer.body.detail_key]).toEqual([405, 'POST', 'errors.common.method_not_allowed']);
    }
    // A path of the templated route stays its own: a malformed id is 422, a PUT there names GET.
    expect((await get(`/v1/webhook_endpoints/${endpoint.id}/deliveries/not-a-uuid`)).body).toMatchObject({ status: 422, field: 'delivery_id' });
    expect((await api.http.put(`/v1/webhook_endpoints/${endpoint.id}/deliveries/not-a-uuid`).set('Authorization', session.auth)).headers.allow).toBe('GET, HEAD');
  });

  it('replay_failed skips personal-data deliveries of an ungranted endpoint', async () => {
    const { endpoint } = await endpointWithFailures('/bulk-pii', 2, { eventTypes: ['hr.employee.created'], piiEnabled: true });
    await db.query(`UPDATE webhook_endpoints SET pii_enabled = false WHERE id = $1`, [endpoint.id]);
    expect((await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed`)).body).toEqual({ enqueued: 0 });
  });

  it.each(['2026-05-16', 'yesterday', '2026-05-16T10:00:00', '2026-13-01T00:00:00Z'])('replay_failed refuses since=%s with 422 invalid_since', async (since) => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/since') });
    const answer = await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed?since=${encodeURIComponent(since)}`);
    expect(answer.status).toBe(422);
    expect(answer.body).toMatchObject({ detail_key: 'errors.integrations.webhooks.invalid_since', code: 'invalid_since' });
  });

  it('limits replay_failed to 5 calls per minute per key', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/limited') });
    // All 6 calls in one minute window, however long they take.
    await inOneWindow(api.app, Date.UTC(2026, 4, 16, 12, 15, 0, 500), async () => {
      for (let i = 0; i < 5; i++) expect((await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed`)).status).toBe(202);
      const limited = await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed`);
      expect(limited.status).toBe(429);
      expect(limited.body.detail_key).toBe('errors.platform.rate_limit.exceeded');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    });
  });

  it('counts no refused replay_failed call (409, 422), nor one answered from idempotency storage, against its limit: only those it runs', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/refused-limit') });
    const path = `/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed`;
    await inOneWindow(api.app, Date.UTC(2026, 4, 16, 11, 15, 0, 500), async () => {
      await db.query(`UPDATE webhook_endpoints SET status = 'paused' WHERE id = $1`, [endpoint.id]);
      for (let i = 0; i < 3; i++) {
        const refused = await post(path);
        expect(refused.body.code).toBe('endpoint_not_active');
        // Its header says the call was given back.
        expect(refused.headers.ratelimit).toMatch(/"webhook_replay_failed";r=5;/);
      }
      await db.query(`UPDATE webhook_endpoints SET status = 'active' WHERE id = $1`, [endpoint.id]);
      for (let i = 0; i < 3; i++) expect((await post(`${path}?since=2026-01-01`)).body.detail_key).toBe('errors.integrations.webhooks.invalid_since');
      // Answered from idempotency storage, a repeat runs nothing and counts nothing either.
      for (let i = 0; i < 3; i++) expect((await post(path).set('Idempotency-Key', `refund-${endpoint.id}`)).status).toBe(202);
      for (let i = 0; i < 4; i++) expect((await post(path)).status).toBe(202);
      const limited = await post(path);
      expect(limited.status).toBe(429);
      expect(limited.body.detail_key).toBe('errors.platform.rate_limit.exceeded');
    });
  });

  it("answers a repeat of a stored answer past a full window with that answer (spec 8: not run again), and a new key's call 429, its key left free", async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/full-window') });
    const path = `/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed`;
    const first = `first-${endpoint.id}`;
    const later = `later-${endpoint.id}`;
    await inOneWindow(api.app, Date.UTC(2026, 4, 16, 14, 15, 0, 500), async () => {
      expect((await post(path).set('Idempotency-Key', first)).status).toBe(202);
      for (let i = 0; i < 4; i++) expect((await post(path)).status).toBe(202);
      expect((await post(path)).status).toBe(429);
      const repeat = await post(path).set('Idempotency-Key', first);
      expect(repeat.status).toBe(202);
      expect(repeat.headers['idempotency-replayed']).toBe('true');
      expect(repeat.body).toEqual({ enqueued: 0 });
      const refused = await post(path).set('Idempotency-Key', later);
      expect(refused.status).toBe(429);
      expect(refused.body.detail_key).toBe('errors.platform.rate_limit.exceeded');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    });
    // The refused call kept no claim of its key: in the next window it runs.
    await inOneWindow(api.app, Date.UTC(2026, 4, 16, 14, 16, 0, 500), async () => {
      const ran = await post(path).set('Idempotency-Key', later);
      expect(ran.status).toBe(202);
      expect(ran.headers['idempotency-replayed']).toBeUndefined();
    });
  });

  it('keeps no count of a call its limit refused (429), so calls given back later free the window again', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/limit-refused') });
    const path = `/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed`;
    const pinned = Date.UTC(2026, 4, 16, 13, 15, 0, 500);
    await inOneWindow(api.app, pinned, async () => {
      for (let i = 0; i < 5; i++) expect((await post(path)).status).toBe(202);
      for (let i = 0; i < 3; i++) expect((await post(path)).status).toBe(429);
    });
    // The minute's counter holds the five calls run. Before, each 429 added one, and calls
    // refused by the route and given back (many at once, with some meeting 429s) could no
    // longer bring it below the limit: the key was locked out for the minute with nothing run.
    const redis = new Redis(api.config.REDIS_URL);
    try {
      const prefix = /^oh_live_([a-z0-9]+)_/.exec(session.key)![1];
      const counted = async () => Number(await redis.get(`${api.config.REDIS_PREFIX}:ratelimit:webhook_replay_failed:${prefix}:${Math.floor(pinned / 60_000)}`));
      expect(await waitFor(async () => (await counted()) === 5 && 5, 2000, 'the count of the calls run')).toBe(5);
    } finally {
      redis.disconnect();
    }
  });

  it('limits single replays to 60 per minute per key', async () => {
    const { endpoint, rows } = await endpointWithFailures('/replay-limit', 1);
    // All 61 calls in one minute window, however long they take.
    await inOneWindow(api.app, Date.UTC(2026, 4, 16, 10, 15, 0, 500), async () => {
      const replay = () => post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${rows[0].id}/replay`);
      for (let i = 0; i < 60; i++) expect((await replay()).status).toBe(202);
      const limited = await replay();
      expect(limited.status).toBe(429);
      expect(limited.body.detail_key).toBe('errors.platform.rate_limit.exceeded');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    });
    await settledDeliveries(api.app, endpoint.id, 61);
  }, 60_000);

  it('answers another key 404 on both replay routes, and a malformed id 422 invalid_input on every delivery route', async () => {
    const { endpoint, rows } = await endpointWithFailures('/owned', 1);
    const other = await session.newKey([Scope.WebhooksManage]);
    for (const path of [`/v1/webhook_endpoints/${endpoint.id}/deliveries/${rows[0].id}/replay`, `/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed`]) {
      const refused = await post(path, other.auth);
      expect(refused.status).toBe(404);
      expect(refused.body.detail_key).toBe('errors.integrations.webhooks.not_found');
    }
    expect(await deliveriesOf(api.app, endpoint.id)).toHaveLength(1);

    const malformed: [typeof get, string][] = [
      [get, '/v1/webhook_endpoints/nope/deliveries'],
      [get, `/v1/webhook_endpoints/nope/deliveries/${rows[0].id}`],
      [post, `/v1/webhook_endpoints/nope/deliveries/${rows[0].id}/replay`],
      [post, `/v1/webhook_endpoints/${endpoint.id}/deliveries/nope/replay`],
      [post, '/v1/webhook_endpoints/nope/deliveries/replay_failed'],
    ];
    for (const [send, path] of malformed) {
      const answer = await send(path);
      expect(answer.status).toBe(422);
      expect(answer.body.detail_key).toBe('errors.common.validation.invalid_input');
    }
  });

  it('replay_failed: dead originals of the last 24 hours by default, never a replay that failed itself', async () => {
    const { endpoint, rows } = await endpointWithFailures('/window', 3);
    await db.query(
      `UPDATE webhook_deliveries SET status = 'dead', error_class = NULL, created_at = clock_timestamp() - interval '23 hours' WHERE id = $1`,
      [rows[0].id],
    );
    await db.query(`UPDATE webhook_deliveries SET created_at = clock_timestamp() - interval '25 hours' WHERE id = $1`, [rows[1].id]);
    // rows[2] is replayed once, and that replay fails too.
    receiver.respond = () => ({ status: 410 });
    expect((await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${rows[2].id}/replay`)).status).toBe(202);
    const settled = await settledDeliveries(api.app, endpoint.id, 4);
    expect(settled.find((row) => row.replayed_from === rows[2].id)).toMatchObject({ status: 'failed', error_class: 'gone' });
    receiver.respond = () => ({ status: 204 });

    expect((await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed`)).body).toEqual({ enqueued: 1 });
    const after = await settledDeliveries(api.app, endpoint.id, 5);
    expect(after.filter((row) => row.replayed_from === rows[0].id)).toHaveLength(1);
    expect(after.filter((row) => row.replayed_from === rows[2].id)).toHaveLength(1);
  });

  it('replays go to the endpoint\'s current URL, signed with its current secret', async () => {
    const { endpoint, secret, rows } = await endpointWithFailures('/before-move', 1);
    const box = api.app.get(WebhookSecretBox);
    const current = box.generateSecret();
    await db.query(`UPDATE webhook_endpoints SET url = $2, secret_ciphertext = $3 WHERE id = $1`, [endpoint.id, receiver.url('/after-move'), box.seal(current)]);

    expect((await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${rows[0].id}/replay`)).status).toBe(202);
    const moved = await waitFor(async () => receiver.requests.find((request) => request.path === '/after-move'));
    expect(verifyStandard(current, moved)).toMatchObject({ id: rows[0].event_id });
    expect(() => verifyStandard(secret, moved)).toThrow();
  });

  it('replay_failed queues at most 1,000 deliveries per call, oldest first', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/thousand'), eventTypes: ['hr.employee.created'] });
    // Events the endpoint is not subscribed to, so the relay leaves them alone; their failed deliveries are written here.
    const eventIds = await publishEvents(api.app, session.tenant.id, 'fin.invoice.created', 1001);
    await db.query(
      `INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, api_version, personal_data, status, attempt, error_class, created_at)
       SELECT $1, $2, event_id, 'fin.invoice.created', '2026-05-16', false, 'failed', 1, 'gone', clock_timestamp() - interval '1 hour' + position * interval '1 second'
         FROM unnest($3::uuid[]) WITH ORDINALITY AS e(event_id, position)`,
      [session.tenant.id, endpoint.id, eventIds],
    );
    const newest = eventIds[eventIds.length - 1];

    expect((await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed`)).body).toEqual({ enqueued: 1000 });
    const [{ replayed_newest }] = await db.query(
      `SELECT count(*)::int AS replayed_newest FROM webhook_deliveries r JOIN webhook_deliveries o ON o.id = r.replayed_from WHERE o.event_id = $1`,
      [newest],
    );
    expect(replayed_newest).toBe(0);
    expect((await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed`)).body).toEqual({ enqueued: 1 });
    await db.query(`UPDATE webhook_endpoints SET status = 'paused' WHERE id = $1`, [endpoint.id]);
  }, 60_000);
});
