import { DataSource } from 'typeorm';
import { Scope } from '../../src/platform/catalog/scopes.js';
import type { TestApi } from '../support/api.js';
import { createEndpoint, deliveriesOf, type DeliveryFixture, publishEvents, settledDeliveries, startDeliveryFixture } from '../support/deliveries.js';
import { inOneWindow } from '../support/rate-limit-clock.js';
import { createTenantSession, type TenantSession } from '../support/tenant-session.js';
import { verifyStandard, type WebhookReceiver } from '../support/webhook-receiver.js';
import { waitFor } from '../support/wait-for.js';

const HOUR = 3600_000;

/** What a subscriber reaches for every day: test events, retry now, and the deliveries list's filters (issue 18). */
describe('subscriber tools (e2e)', () => {
  let fixture: DeliveryFixture;
  let api: TestApi;
  let receiver: WebhookReceiver;
  let db: DataSource;
  let session: TenantSession;

  beforeAll(async () => {
    // Retries an hour apart, so a failed first attempt leaves its delivery pending for the test to
    // hurry; no sweep meanwhile, so only the retry's own offer to the gate can bring it forward.
    fixture = await startDeliveryFixture('subscriber-tools', {
      WEBHOOK_RETRY_SCHEDULE_MS: Array(7).fill(HOUR).join(','),
      WEBHOOK_SWEEP_INTERVAL_MS: String(HOUR),
      WEBHOOK_DISABLE_GONE_STREAK: '1000',
    });
    ({ api, receiver, db } = fixture);
  });
  afterAll(() => fixture.close());
  beforeEach(async () => {
    session = await createTenantSession(api.app, { scopes: [Scope.WebhooksManage, Scope.FinInvoicesRead, Scope.HrEmployeesRead] });
    receiver.respond = () => ({ status: 204 });
  });

  const owner = () => ({ tenantId: session.tenant.id, apiKeyId: session.keyId });
  const post = (path: string, auth = session.auth) => api.http.post(path).set('Authorization', auth);
  const get = (path: string, auth = session.auth) => api.http.get(path).set('Authorization', auth);
  const at = (path: string) => receiver.requests.filter((request) => request.path === path);

  describe('test events', () => {
    it('delivers a signed test event of the first subscribed type to that endpoint alone, marked test: true, not in the feed', async () => {
      const { endpoint, secret } = await createEndpoint(api.app, owner(), { url: receiver.url('/test'), eventTypes: ['fin.invoice.created', 'fin.invoice.paid'] });
      await createEndpoint(api.app, owner(), { url: receiver.url('/test-other'), eventTypes: ['fin.invoice.created'] });

      const answer = await post(`/v1/webhook_endpoints/${endpoint.id}/test_events`);
      expect(answer.status).toBe(202);
      expect(answer.body).toMatchObject({ endpoint_id: endpoint.id, event_type: 'fin.invoice.created', status: 'pending', attempt: 0, replayed_from: null });

      const [request] = await waitFor(async () => at('/test').length > 0 && at('/test'));
      const envelope = verifyStandard(secret, request);
      expect(envelope).toMatchObject({ id: answer.body.event_id, type: 'fin.invoice.created', test: true, data: { id: expect.any(String), lines: expect.any(Array) } });
      expect(Object.keys(envelope)).toEqual(['id', 'type', 'created_at', 'api_version', 'test', 'data']);
      expect(request.headers['idempotency-key']).toBe(answer.body.event_id);
      expect((await settledDeliveries(api.app, endpoint.id, 1))[0]).toMatchObject({ id: answer.body.id, status: 'delivered' });

      const listed = await get(`/v1/webhook_endpoints/${endpoint.id}/deliveries`);
      expect(listed.body.data.map((delivery: { id: string }) => delivery.id)).toEqual([answer.body.id]);
      const [event] = await db.query(
        `SELECT test, dispatched_at, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at FROM events WHERE id = $1`,
        [answer.body.event_id],
      );
      expect(event).toMatchObject({ test: true, dispatched_at: expect.any(Date) });
      // By the database's clock, as every event's (before, the API process's, a few ms earlier).
      expect(envelope.created_at).toBe(event.created_at);
      expect(await db.query(`SELECT endpoint_id FROM webhook_deliveries WHERE event_id = $1`, [answer.body.event_id])).toEqual([{ endpoint_id: endpoint.id }]);
      expect(at('/test-other')).toHaveLength(0);

      const feedKey = await session.newKey([Scope.All]);
      expect((await get('/v1/events', feedKey.auth)).body.data).toEqual([]);
      expect((await get(`/v1/events/${answer.body.event_id}`, feedKey.auth)).status).toBe(404);
    });

    it('takes the named type, and fin.invoice.created for an endpoint subscribed to ["*"]', async () => {
      const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/test-named'), eventTypes: ['fin.invoice.created', 'fin.invoice.paid'] });
      const named = await post(`/v1/webhook_endpoints/${endpoint.id}/test_events`).send({ event_type: 'fin.invoice.paid' });
      expect(named.status).toBe(202);
      expect(named.body.event_type).toBe('fin.invoice.paid');

      // `["*"]` needs an `int:*` key.
      const everything = await createTenantSession(api.app, { scopes: [Scope.All] });
      const all = await createEndpoint(api.app, { tenantId: everything.tenant.id, apiKeyId: everything.keyId }, { url: receiver.url('/test-all'), eventTypes: ['*'] });
      const send = (body: object) => post(`/v1/webhook_endpoints/${all.endpoint.id}/test_events`, everything.auth).send(body);
      expect((await send({})).body.event_type).toBe('fin.invoice.created');
      expect((await send({ event_type: 'datev.export.started' })).body.event_type).toBe('datev.export.started');
      const datev = await waitFor(async () => at('/test-all').find((one) => JSON.parse(one.body).type === 'datev.export.started'));
      expect(JSON.parse(datev.body).test).toBe(true);
    });

    it('refuses: 422 event_type_not_subscribed, unknown_event_type and unknown_field, 409 endpoint_not_active, 403 pii_not_granted, 404 for another key', async () => {
      const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/test-refused'), eventTypes: ['fin.invoice.created', 'hr.employee.created'] });
      const path = `/v1/webhook_endpoints/${endpoint.id}/test_events`;

      const notSubscribed = await post(path).send({ event_type: 'fin.invoice.paid' });
      expect(notSubscribed.status).toBe(422);
      expect(notSubscribed.body).toMatchObject({ detail_key: 'errors.integrations.webhooks.event_type_not_subscribed', code: 'event_type_not_subscribed', field: 'event_type' });
      const unknown = await post(path).send({ event_type: 'fin.invoice.deleted' });
      expect(unknown.status).toBe(422);
      expect(unknown.body).toMatchObject({ code: 'unknown_event_type', unknown_event_types: ['fin.invoice.deleted'] });
      const member = await post(path).send({ event_type: 'fin.invoice.created', data: {} });
      expect(member.status).toBe(422);
      expect(member.body).toMatchObject({ code: 'unknown_field', field: 'data' });
      for (const value of [7, null]) {
        const wrongType = await post(path).send({ event_type: value });
        expect(wrongType.body).toMatchObject({
          status: 422,
          detail_key: 'errors.integrations.webhooks.validation_failed',
          errors: [{ path: 'event_type', code: 'invalid_type', message: 'event_type must be a string' }],
        });
      }

      const personal = await post(path).send({ event_type: 'hr.employee.created' });
      expect(personal.status).toBe(403);
      expect(personal.body).toMatchObject({ detail_key: 'errors.integrations.webhooks.pii_not_granted', code: 'pii_not_granted' });

      const other = await session.newKey([Scope.WebhooksManage, Scope.FinInvoicesRead]);
      expect((await post(path, other.auth)).status).toBe(404);

      await db.query(`UPDATE webhook_endpoints SET status = 'paused' WHERE id = $1`, [endpoint.id]);
      const paused = await post(path);
      expect(paused.status).toBe(409);
      expect(paused.body).toMatchObject({ code: 'endpoint_not_active' });
      expect(await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1`, [endpoint.id])).toEqual([{ n: 0 }]);
    });

    it('accepts Idempotency-Key: a repeat answers the same delivery and sends nothing more', async () => {
      const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/test-once') });
      const first = await post(`/v1/webhook_endpoints/${endpoint.id}/test_events`).set('Idempotency-Key', `t-${endpoint.id}`);
      const again = await post(`/v1/webhook_endpoints/${endpoint.id}/test_events`).set('Idempotency-Key', `t-${endpoint.id}`);
      expect(again.status).toBe(202);
      expect(again.headers['idempotency-replayed']).toBe('true');
      expect(again.body.id).toBe(first.body.id);
      expect(await deliveriesOf(api.app, endpoint.id)).toHaveLength(1);
    });
  });

  describe('retry now', () => {
    /** An endpoint whose one delivery failed its first attempt and waits an hour for the next. */
    async function waitingDelivery(path: string) {
      const created = await createEndpoint(api.app, owner(), { url: receiver.url(path) });
      receiver.respond = (request) => (request.path === path ? { status: 500 } : { status: 204 });
      await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
      const row = await waitFor(async () => (await deliveriesOf(api.app, created.endpoint.id)).find((one) => one.attempt === 1));
      expect(row.status).toBe('pending');
      expect(row.next_attempt_at!.getTime()).toBeGreaterThan(Date.now() + HOUR / 2);
      return { ...created, row };
    }

    it('makes the next attempt of a pending delivery now: 202, one attempt more, delivered', async () => {
      const { endpoint, row } = await waitingDelivery('/retry');
      receiver.respond = () => ({ status: 204 });
      const answer = await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${row.id}/retry`);
      expect(answer.status).toBe(202);
      expect(answer.body).toMatchObject({ id: row.id, status: 'pending', attempt: 1 });
      expect(new Date(answer.body.next_attempt_at).getTime()).toBeLessThan(Date.now() + 60_000);

      const [settled] = await settledDeliveries(api.app, endpoint.id, 1);
      expect(settled).toMatchObject({ id: row.id, status: 'delivered', attempt: 2, last_response_status: 204 });
      expect(at('/retry')).toHaveLength(2);
    });

    it('commits its change with its Idempotency-Key claim: a process that stops before storing the answer is never run again', async () => {
      const { endpoint, row } = await waitingDelivery('/retry-claim');
      const key = `retry-claim-${row.id}`;
      // Storing this key's answer fails, as if the process had died right after its change committed.
      await db.query(`CREATE FUNCTION refuse_retry_answer() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the process stopped'; END $$`);
      await db.query(`CREATE TRIGGER refuse_retry_answer BEFORE UPDATE ON idempotency_keys FOR EACH ROW
        WHEN (NEW.key = '${key}' AND NEW.state = 'completed') EXECUTE FUNCTION refuse_retry_answer()`);
      try {
        const retry = () => post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${row.id}/retry`).set('Idempotency-Key', key);
        expect((await retry()).status).toBe(202);
        // Before: in_progress, though the change had committed; past the stale limit a repeat took it over and ran it again.
        expect(await db.query(`SELECT state FROM idempotency_keys WHERE key = $1`, [key])).toEqual([{ state: 'committed' }]);
        // The hurried attempt fails too and waits for its next: the row is still from then on, unless the retry runs again.
        await waitFor(async () => (await deliveriesOf(api.app, endpoint.id)).find((one) => one.attempt === 2 && one.next_attempt_at!.getTime() > Date.now() + 60_000));
        const [{ updated_at: hurriedAt }] = await db.query(`SELECT updated_at FROM webhook_deliveries WHERE id = $1`, [row.id]);
        await db.query(`UPDATE idempotency_keys SET locked_at = clock_timestamp() - interval '61 seconds' WHERE key = $1`, [key]);
        const repeat = await retry();
        expect(repeat.status).toBe(409);
        expect(repeat.body.detail_key).toBe('errors.platform.idempotency.replay_unavailable');
        expect(await db.query(`SELECT updated_at FROM webhook_deliveries WHERE id = $1`, [row.id])).toEqual([{ updated_at: hurriedAt }]);
      } finally {
        await db.query('DROP TRIGGER refuse_retry_answer ON idempotency_keys');
        await db.query('DROP FUNCTION refuse_retry_answer');
      }
    });

    it('sends nothing twice when asked while an attempt is in flight', async () => {
      const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/retry-flight') });
      receiver.respond = (request) => (request.path === '/retry-flight' ? { status: 204, delayMs: 800 } : { status: 204 });
      await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
      await waitFor(async () => at('/retry-flight').length > 0);
      const [row] = await deliveriesOf(api.app, endpoint.id);
      for (let i = 0; i < 3; i++) {
        const answer = await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${row.id}/retry`);
        expect(answer.status).toBe(202);
        expect(answer.body).toMatchObject({ id: row.id, status: 'pending', attempt: 0 });
      }
      const [settled] = await settledDeliveries(api.app, endpoint.id, 1);
      expect(settled).toMatchObject({ status: 'delivered', attempt: 1 });
      expect(await db.query(`SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE delivery_id = $1`, [row.id])).toEqual([{ n: 1 }]);
      expect(at('/retry-flight')).toHaveLength(1);
    });

    it('refuses a finished delivery with 409 delivery_not_pending, a paused endpoint with 409, another key with 404', async () => {
      const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/retry-done') });
      await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
      const [done] = await settledDeliveries(api.app, endpoint.id, 1);
      const refused = await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${done.id}/retry`);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ detail_key: 'errors.integrations.webhooks.delivery_not_pending', code: 'delivery_not_pending', delivery_status: 'delivered' });

      const other = await session.newKey([Scope.WebhooksManage]);
      expect((await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${done.id}/retry`, other.auth)).status).toBe(404);

      const waiting = await waitingDelivery('/retry-paused');
      await db.query(`UPDATE webhook_endpoints SET status = 'paused' WHERE id = $1`, [waiting.endpoint.id]);
      const paused = await post(`/v1/webhook_endpoints/${waiting.endpoint.id}/deliveries/${waiting.row.id}/retry`);
      expect(paused.status).toBe(409);
      expect(paused.body.code).toBe('endpoint_not_active');
    });

    it('shares the replay limit: replays, retries and test events together, 60 per minute per key', async () => {
      const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/limit') });
      await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
      const [done] = await settledDeliveries(api.app, endpoint.id, 1);
      await inOneWindow(api.app, Date.UTC(2026, 10, 24, 10, 15, 0, 500), async () => {
        for (let i = 0; i < 30; i++) expect((await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${done.id}/replay`)).status).toBe(202);
        for (let i = 0; i < 30; i++) expect((await post(`/v1/webhook_endpoints/${endpoint.id}/test_events`)).status).toBe(202);
        const limited = await post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${done.id}/retry`);
        expect(limited.status).toBe(429);
        expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      });
      await settledDeliveries(api.app, endpoint.id, 61);
    }, 60_000);
  });

  describe('deliveries list filters', () => {
    let endpointId: string;
    let ids: string[];
    let auth: string;

    /** Three delivered fin.invoice.created deliveries and two failed fin.invoice.paid ones, a minute apart, oldest first. */
    beforeAll(async () => {
      const session = await createTenantSession(api.app, { scopes: [Scope.WebhooksManage, Scope.FinInvoicesRead] });
      auth = session.auth;
      const { endpoint } = await createEndpoint(api.app, { tenantId: session.tenant.id, apiKeyId: session.keyId }, { url: receiver.url('/filters'), eventTypes: ['fin.invoice.created', 'fin.invoice.paid'] });
      endpointId = endpoint.id;
      receiver.respond = (request) => (request.path === '/filters' && JSON.parse(request.body).type === 'fin.invoice.paid' ? { status: 410 } : { status: 204 });
      const eventIds: string[] = [];
      for (const type of ['fin.invoice.created', 'fin.invoice.paid', 'fin.invoice.created', 'fin.invoice.paid', 'fin.invoice.created'] as const) {
        eventIds.push(...(await publishEvents(api.app, session.tenant.id, type)));
      }
      // In publishing order: the relay may make several events' deliveries in one transaction, at one created_at.
      const rows = await settledDeliveries(api.app, endpointId, 5);
      ids = eventIds.map((eventId) => rows.find((row) => row.event_id === eventId)!.id);
      for (const [n, id] of ids.entries()) await db.query(`UPDATE webhook_deliveries SET created_at = $2 WHERE id = $1`, [id, new Date(Date.UTC(2026, 10, 1, 8, n))]);
    });
    beforeEach(() => {
      receiver.respond = () => ({ status: 204 });
    });

    const list = async (query: string) => {
      const answer = await get(`/v1/webhook_endpoints/${endpointId}/deliveries?${query}`, auth);
      expect(answer.status).toBe(200);
      return answer.body;
    };
    const idsOf = (body: { data: { id: string }[] }) => body.data.map((delivery) => delivery.id);

    it('status, event_type and since narrow the list, and combine', async () => {
      const failed = await list('status=failed');
      expect(idsOf(failed)).toEqual([ids[3], ids[1]]);
      expect(failed.data.every((delivery: { status: string; error_class: string }) => delivery.status === 'failed' && delivery.error_class === 'gone')).toBe(true);
      expect(idsOf(await list('event_type=fin.invoice.created'))).toEqual([ids[4], ids[2], ids[0]]);
      expect(idsOf(await list('since=2026-11-01T08:02:00Z'))).toEqual([ids[4], ids[3], ids[2]]);
      expect(idsOf(await list('status=delivered&event_type=fin.invoice.created&since=2026-11-01T08:02:00Z'))).toEqual([ids[4], ids[2]]);
      expect(idsOf(await list('status=dead'))).toEqual([]);
    });

    it('combine with the cursor, which is bound to them', async () => {
      const first = await list('status=delivered&limit=2');
      expect(first.has_more).toBe(true);
      const second = await list(`status=delivered&limit=2&cursor=${first.next_cursor}`);
      expect([...idsOf(first), ...idsOf(second)]).toEqual([ids[4], ids[2], ids[0]]);
      expect(second).toMatchObject({ has_more: false, next_cursor: null });
      for (const query of [`status=failed&cursor=${first.next_cursor}`, `cursor=${first.next_cursor}`]) {
        const refused = await get(`/v1/webhook_endpoints/${endpointId}/deliveries?${query}`, auth);
        expect(refused.status).toBe(422);
        expect(refused.body.detail_key).toBe('errors.integrations.invalid_cursor');
      }
    });

    it.each([
      ['status=lost', 'errors.common.validation.invalid_input', { field: 'status' }],
      ['status=failed&status=dead', 'errors.common.validation.invalid_input', { field: 'status' }],
      ['event_type=fin.invoice.deleted', 'errors.integrations.webhooks.unknown_event_type', { unknown_event_types: ['fin.invoice.deleted'] }],
      ['event_type=fin.invoice.created,fin.invoice.paid', 'errors.common.validation.invalid_input', { field: 'event_type' }],
      ['since=2026-11-01', 'errors.integrations.webhooks.invalid_since', { code: 'invalid_since' }],
    ])('refuses %s with 422 %s', async (query, detailKey, members) => {
      const refused = await get(`/v1/webhook_endpoints/${endpointId}/deliveries?${query}`, auth);
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ detail_key: detailKey, ...members });
    });
  });
});
