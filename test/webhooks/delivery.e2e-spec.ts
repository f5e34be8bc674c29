import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '../../src/platform/auth/api-keys.service.js';
import { Scope } from '../../src/platform/catalog/scopes.js';
import { EventPublisher } from '../../src/platform/events/event-publisher.service.js';
import { TenantData } from '../../src/platform/tenancy/tenant-data.js';
import { TenantsService } from '../../src/platform/tenancy/tenants.service.js';
import { CURRENT_API_VERSION } from '../../src/platform/versioning/api-version.js';
import { DeliveryStore, RELAY_COMPANY_SHARE } from '../../src/webhooks/delivery/delivery-store.js';
import { WebhookSecretBox } from '../../src/webhooks/secrets/webhook-secret-box.js';
import { WebhookEndpoint } from '../../src/webhooks/webhook-endpoint.entity.js';
import type { TestApi } from '../support/api.js';
import { createEndpoint, deliveriesOf, eventData, publishEvents, settledDeliveries, startDeliveryFixture, type DeliveryFixture } from '../support/deliveries.js';
import { createTenantSession, type TenantSession } from '../support/tenant-session.js';
import { verifyOhSignature, verifyStandard, type WebhookReceiver } from '../support/webhook-receiver.js';
import { stubDns } from '../support/webhooks.js';
import { waitFor } from '../support/wait-for.js';


/**
 * The first write of `table`'s rows for the endpoint loses its connection mid-statement, as in a
 * failover or a restart of PostgreSQL: its backend ends itself from a trigger. `writes` counts
 * the writes tried, the dropped one included.
 */
async function dropFirstWriteOf(db: DataSource, table: 'webhook_deliveries' | 'webhook_delivery_attempts', endpointId: string) {
  const sequence = `writes_of_${endpointId.replaceAll('-', '_')}`;
  await db.query(`CREATE SEQUENCE ${sequence}`);
  await db.query(`CREATE FUNCTION drop_first_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.endpoint_id = '${endpointId}' THEN
        IF nextval('${sequence}') = 1 THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF;
      END IF;
      RETURN NEW;
    END $$`);
  await db.query(`CREATE TRIGGER drop_first_write BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION drop_first_write()`);
  return {
    writes: async () => Number((await db.query(`SELECT last_value FROM ${sequence}`))[0].last_value),
    remove: async () => {
      await db.query(`DROP TRIGGER drop_first_write ON ${table}`);
      await db.query(`DROP FUNCTION drop_first_write()`);
      await db.query(`DROP SEQUENCE ${sequence}`);
    },
  };
}

describe('webhook delivery: relay, signed sends, retries (e2e)', () => {
  let fixture: DeliveryFixture;
  let api: TestApi;
  let worker: INestApplicationContext;
  let receiver: WebhookReceiver;
  let db: DataSource;
  let session: TenantSession;

  beforeAll(async () => {
    fixture = await startDeliveryFixture('delivery');
    ({ api, worker, receiver, db } = fixture);
  });
  afterAll(() => fixture.close());
  beforeEach(async () => {
    session = await createTenantSession(api.app, { scopes: [Scope.All] });
    receiver.respond = () => ({ status: 204 });
  });

  const owner = () => ({ tenantId: session.tenant.id, apiKeyId: session.keyId });
  const requestsTo = (path: string) => receiver.requests.filter((request) => request.path === path);

  it('delivers a committed event once, signed so that standardwebhooks verifies it, and records the attempt', async () => {
    const { endpoint, secret } = await createEndpoint(api.app, owner(), { url: receiver.url('/basic') });
    const [eventId] = await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');

    const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
    expect(delivery).toMatchObject({ event_id: eventId, status: 'delivered', attempt: 1, error_class: null, next_attempt_at: null, last_response_status: 204 });
    const [request] = requestsTo('/basic');
    expect(verifyStandard(secret, request)).toEqual({
      id: eventId,
      type: 'fin.invoice.created',
      created_at: expect.any(String),
      api_version: CURRENT_API_VERSION,
      data: await eventData(api.app, 'fin.invoice.created', { n: 0 }),
    });
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'idempotency-key': eventId,
      'webhook-id': eventId,
      'user-agent': expect.stringMatching(/^OH-Webhooks\/1\.0/),
    });
    expect(verifyOhSignature(secret, String(request.headers['x-oh-signature']), request.body)).toBe(true);
    expect(verifyOhSignature(secret, String(request.headers['x-oh-signature']), `${request.body} `)).toBe(false);
    // The documented verifier refuses a forged header rather than throwing (64 characters that are not hex decode to fewer bytes).
    const now = Math.floor(Date.now() / 1000);
    for (const forged of [`t=${now},v1=${'z'.repeat(64)}`, `t=${now},v1=${'0'.repeat(63)}g`, `t=${now},v1=`, `t=${now}`]) {
      expect(verifyOhSignature(secret, forged, request.body)).toBe(false);
    }

    const attempts = await db.query(`SELECT * FROM webhook_delivery_attempts WHERE delivery_id = $1`, [delivery.id]);
    expect(attempts).toEqual([
      expect.objectContaining({ attempt: 1, response_status: 204, error_kind: null, response_body: '', started_at: expect.any(Date), duration_ms: expect.any(Number) }),
    ]);
    const [event] = await db.query(`SELECT dispatched_at FROM events WHERE id = $1`, [eventId]);
    expect(event.dispatched_at).toBeInstanceOf(Date);
  });

  it('fans out only to entitled endpoints: subscribed, active, created before the event, key in scope, personal data only when granted', async () => {
    const subscribed = await createEndpoint(api.app, owner(), { url: receiver.url('/fan/a'), eventTypes: ['hr.employee.created'], piiEnabled: true });
    const everything = await createEndpoint(api.app, owner(), { url: receiver.url('/fan/b'), eventTypes: ['*'], piiEnabled: true });
    const notGranted = await createEndpoint(api.app, owner(), { url: receiver.url('/fan/c'), eventTypes: ['hr.employee.created'] });
    const otherType = await createEndpoint(api.app, owner(), { url: receiver.url('/fan/d'), eventTypes: ['fin.invoice.created'] });
    const paused = await createEndpoint(api.app, owner(), { url: receiver.url('/fan/e'), eventTypes: ['hr.employee.created'], piiEnabled: true, status: 'paused' });
    const narrowKey = await session.newKey([Scope.FinInvoicesRead, Scope.WebhooksManage]);
    const outOfScope = await createEndpoint(api.app, { tenantId: session.tenant.id, apiKeyId: narrowKey.id }, {
      url: receiver.url('/fan/f'),
      eventTypes: ['hr.employee.created'],
      piiEnabled: true,
    });
    const stranger = await createTenantSession(api.app);
    const otherCompany = await createEndpoint(api.app, { tenantId: stranger.tenant.id, apiKeyId: stranger.keyId }, { url: receiver.url('/fan/g'), eventTypes: ['*'], piiEnabled: true });

    const [eventId] = await publishEvents(api.app, session.tenant.id, 'hr.employee.created');
    const late = await createEndpoint(api.app, owner(), { url: receiver.url('/fan/h'), eventTypes: ['*'], piiEnabled: true });

    await settledDeliveries(api.app, subscribed.endpoint.id, 1);
    await settledDeliveries(api.app, everything.endpoint.id, 1);
    await waitFor(async () => (await db.query(`SELECT 1 FROM events WHERE id = $1 AND dispatched_at IS NOT NULL`, [eventId])).length === 1);
    for (const { endpoint } of [notGranted, otherType, paused, outOfScope, otherCompany, late]) expect(await deliveriesOf(api.app, endpoint.id)).toEqual([]);

    // Fan-out is idempotent: relaying the same event again creates no second delivery.
    await db.query(`UPDATE events SET dispatched_at = NULL WHERE id = $1`, [eventId]);
    await waitFor(async () => (await db.query(`SELECT 1 FROM events WHERE id = $1 AND dispatched_at IS NOT NULL`, [eventId])).length === 1);
    expect(await deliveriesOf(api.app, subscribed.endpoint.id)).toHaveLength(1);
  });

  describe('an event relayed late is judged by the endpoint as it was when the event happened (spec 3 rules 1 and 3)', () => {
    /** Publishes an event whose time is `at`, as if the relay had been behind since then. */
    async function eventAt(at: string): Promise<string> {
      const data = await eventData(api.app, 'fin.invoice.created');
      const id = await api.app.get(TenantData).transaction(session.tenant.id, async (scope) => {
        const envelope = await api.app.get(EventPublisher).publish(scope, 'fin.invoice.created', data);
        await scope.query(`UPDATE events SET created_at = $3 WHERE tenant_id = $1 AND id = $2`, [envelope.id, at]);
        return envelope.id;
      });
      await waitFor(async () => (await db.query(`SELECT 1 FROM events WHERE id = $1 AND dispatched_at IS NOT NULL`, [id])).length === 1);
      return id;
    }
    const setStatus = (id: string, status: 'paused' | 'active') =>
      db.query(`UPDATE webhook_endpoints SET status = $2, status_changed_at = clock_timestamp() WHERE id = $1 RETURNING status_changed_at`, [id, status]);
    const now = async (): Promise<string> => (await db.query(`SELECT clock_timestamp()::text AS at`))[0].at;

    it('an event of a pause, relayed after the resume: never queued for the endpoint', async () => {
      const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/late/paused') });
      await setStatus(endpoint.id, 'paused');
      const during = await now();
      await setStatus(endpoint.id, 'active');
      await eventAt(during);
      expect(await deliveriesOf(api.app, endpoint.id)).toEqual([]);
      // An event after the resume is delivered as usual.
      await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
      expect(await settledDeliveries(api.app, endpoint.id, 1)).toEqual([expect.objectContaining({ status: 'delivered' })]);
    });

    const subscribe = async (id: string, eventTypes: string[]) => {
      const res = await api.http.patch(`/v1/webhook_endpoints/${id}`).set('Authorization', session.auth).send({ event_types: eventTypes });
      expect(res.status).toBe(200);
    };

    it('an event of a type the endpoint stopped receiving after it happened, relayed after the change: delivered', async () => {
      const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/late/unsubscribed'), eventTypes: ['fin.invoice.created'] });
      const before = await now();
      await subscribe(endpoint.id, ['fin.invoice.updated']);
      const eventId = await eventAt(before);
      expect(await settledDeliveries(api.app, endpoint.id, 1)).toEqual([expect.objectContaining({ event_id: eventId, status: 'delivered' })]);
      expect(requestsTo('/late/unsubscribed')).toHaveLength(1);
    });

    it('an event of a type the endpoint subscribed to only after it happened, relayed after the change: never queued', async () => {
      const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/late/subscribed'), eventTypes: ['fin.invoice.updated'] });
      const before = await now();
      await subscribe(endpoint.id, ['fin.invoice.created']);
      // Two changes: the types before the first one after the event are those it is judged by.
      await subscribe(endpoint.id, ['*']);
      await eventAt(before);
      expect(await deliveriesOf(api.app, endpoint.id)).toEqual([]);
      const history = await db.query(`SELECT previous_event_types FROM webhook_endpoint_subscription_changes WHERE endpoint_id = $1 ORDER BY changed_at`, [endpoint.id]);
      expect(history).toEqual([{ previous_event_types: ['fin.invoice.updated'] }, { previous_event_types: ['fin.invoice.created'] }]);
      await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
      expect(await settledDeliveries(api.app, endpoint.id, 1)).toEqual([expect.objectContaining({ status: 'delivered' })]);
    });

    it('an event from before a pause, relayed after it: a delivery that ends endpoint_disabled, replayable', async () => {
      const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/late/active') });
      const before = await now();
      await setStatus(endpoint.id, 'paused');
      const eventId = await eventAt(before);
      const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
      expect(delivery).toMatchObject({ event_id: eventId, status: 'failed', error_class: 'endpoint_disabled', attempt: 0 });
      expect(requestsTo('/late/active')).toHaveLength(0);
      await setStatus(endpoint.id, 'active');
      const replayed = await api.http.post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/replay_failed`).set('Authorization', session.auth);
      expect(replayed.body).toEqual({ enqueued: 1 });
      await waitFor(async () => requestsTo('/late/active').length === 1, 10_000, 'the replay to arrive');
    });

    it('an event published while a resume commits waits for it, and is delivered: never judged by the pause the resume is ending', async () => {
      const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/late/resuming') });
      await setStatus(endpoint.id, 'paused');
      // The resume stalls after its UPDATE, before its commit, on an advisory lock the test holds.
      const stallKey = 0x5745_4b31;
      const stall = db.createQueryRunner();
      await stall.connect();
      await stall.query(`SELECT pg_advisory_lock($1)`, [stallKey]);
      await db.query(`CREATE FUNCTION test_stall_resume() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_advisory_xact_lock_shared(${stallKey}); RETURN NULL; END $$`);
      await db.query(`CREATE TRIGGER test_stall_resume AFTER UPDATE ON webhook_endpoints FOR EACH ROW WHEN (NEW.id = '${endpoint.id}' AND NEW.status = 'active') EXECUTE FUNCTION test_stall_resume()`);
      const waitingOn = async (statement: string) =>
        (await db.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'advisory' AND query LIKE $1`, [`${statement}%`])).length > 0;
      let published: string | undefined;
      try {
        const resumed = api.http.post(`/v1/webhook_endpoints/${endpoint.id}/resume`).set('Authorization', session.auth).then((res) => res);
        await waitFor(() => waitingOn('UPDATE "webhook_endpoints"'), 10_000, 'the resume to stall after its update');
        const data = await eventData(api.app, 'fin.invoice.created');
        const publishing = api.app
          .get(TenantData)
          .transaction(session.tenant.id, (scope) => api.app.get(EventPublisher).publish(scope, 'fin.invoice.created', data))
          .then((envelope) => (published = envelope.id));
        // Either the event waits for the resume, or (without that) it commits and is relayed while the resume is still uncommitted.
        await waitFor(
          async () => (published ? (await db.query(`SELECT 1 FROM events WHERE id = $1 AND dispatched_at IS NOT NULL`, [published])).length === 1 : waitingOn('INSERT INTO events')),
          10_000,
          'the event to wait for the resume, or to be relayed',
        );
        await stall.query(`SELECT pg_advisory_unlock($1)`, [stallKey]);
        expect((await resumed).status).toBe(200);
        await publishing;
      } finally {
        await db.query(`DROP TRIGGER IF EXISTS test_stall_resume ON webhook_endpoints`);
        await db.query(`DROP FUNCTION IF EXISTS test_stall_resume()`);
        await stall.release();
      }
      expect(await settledDeliveries(api.app, endpoint.id, 1)).toEqual([expect.objectContaining({ event_id: published, status: 'delivered' })]);
    });

    it('an event from before a pause and a resume, relayed after both, is delivered', async () => {
      const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/late/between') });
      const before = await now();
      await setStatus(endpoint.id, 'paused');
      await setStatus(endpoint.id, 'active');
      await eventAt(before);
      expect(await settledDeliveries(api.app, endpoint.id, 1)).toEqual([expect.objectContaining({ status: 'delivered' })]);
    });
  });

  it.each([
    ['expired', 'expires_at'],
    ['deleted', 'deleted_at'],
  ])('pauses an endpoint with api_key_inactive at the first event its %s key can no longer receive', async (state, column) => {
    const expiring = await session.newKey([Scope.All]);
    const { endpoint } = await createEndpoint(api.app, { tenantId: session.tenant.id, apiKeyId: expiring.id }, { url: receiver.url(`/${state}`) });
    await db.query(`UPDATE api_keys SET ${column} = clock_timestamp() WHERE id = $1`, [expiring.id]);
    const [eventId] = await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');

    await waitFor(async () => (await db.query(`SELECT 1 FROM events WHERE id = $1 AND dispatched_at IS NOT NULL`, [eventId])).length === 1);
    const stored = await db.getRepository(WebhookEndpoint).findOneByOrFail({ id: endpoint.id });
    expect(stored).toMatchObject({ status: 'paused', disabledReason: 'api_key_inactive' });
    expect(await deliveriesOf(api.app, endpoint.id)).toEqual([]);
  });

  it("relays another company's event while a relay transaction is held up, instead of after it", async () => {
    // A relay transaction that must pause an endpoint (its key expired) waits while the test holds that endpoint's row.
    const expiring = await session.newKey([Scope.All]);
    const { endpoint: stuck } = await createEndpoint(api.app, { tenantId: session.tenant.id, apiKeyId: expiring.id }, { url: receiver.url('/held-up') });
    await db.query(`UPDATE api_keys SET expires_at = clock_timestamp() WHERE id = $1`, [expiring.id]);
    const other = await createTenantSession(api.app, { scopes: [Scope.All] });
    const { endpoint: healthy } = await createEndpoint(api.app, { tenantId: other.tenant.id, apiKeyId: other.keyId }, { url: receiver.url('/beside-held-up') });
    const dispatched = async (eventId: string) => (await db.query(`SELECT 1 FROM events WHERE id = $1 AND dispatched_at IS NOT NULL`, [eventId])).length === 1;

    const lock = db.createQueryRunner();
    await lock.connect();
    await lock.startTransaction();
    let heldUpEvent: string;
    try {
      await lock.query(`SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR UPDATE`, [stuck.id]);
      [heldUpEvent] = await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
      await waitFor(
        async () =>
          (
            await db.query(
              `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE webhook_endpoints SET status = ''paused''%'`,
            )
          ).length > 0,
      );

      const [eventId] = await publishEvents(api.app, other.tenant.id, 'fin.invoice.created');
      const [delivery] = await settledDeliveries(api.app, healthy.id, 1);
      expect(delivery).toMatchObject({ event_id: eventId, status: 'delivered' });
      expect(await dispatched(heldUpEvent)).toBe(false);
    } finally {
      await lock.rollbackTransaction();
      await lock.release();
    }
    await waitFor(() => dispatched(heldUpEvent));
    expect(await db.getRepository(WebhookEndpoint).findOneByOrFail({ id: stuck.id })).toMatchObject({ status: 'paused', disabledReason: 'api_key_inactive' });
  });

  it("relays companies in turn: one company's backlog holds back another's event by a relay transaction of its share, not by the backlog", async () => {
    const other = await createTenantSession(api.app, { scopes: [Scope.All] });
    const { endpoint } = await createEndpoint(api.app, { tenantId: other.tenant.id, apiKeyId: other.keyId }, { url: receiver.url('/beside-backlog') });
    const eventId = randomUUID();
    // Committed together, so the relay finds both at once however fast it is: 3,000 older events
    // of one company, then one of another.
    await db.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO events (id, tenant_id, type, envelope, created_at)
         SELECT id, $1, 'fin.invoice.created', jsonb_build_object('id', id, 'type', 'fin.invoice.created', 'created_at', now(), 'data', '{}'::jsonb), now() - interval '1 second'
           FROM (SELECT gen_random_uuid() AS id FROM generate_series(1, 3000)) AS ids`,
        [session.tenant.id],
      );
      await manager.query(
        `INSERT INTO events (id, tenant_id, type, envelope) VALUES ($1, $2, 'fin.invoice.created', jsonb_build_object('id', $1::uuid, 'type', 'fin.invoice.created', 'created_at', now(), 'data', '{}'::jsonb))`,
        [eventId, other.tenant.id],
      );
    });

    const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
    expect(delivery).toMatchObject({ event_id: eventId, status: 'delivered' });
    await waitFor(async () => (await db.query(`SELECT 1 FROM events WHERE tenant_id = $1 AND dispatched_at IS NULL LIMIT 1`, [session.tenant.id])).length === 0);
    // Oldest first across companies, the event would be relayed in the last transaction, after
    // nearly all of the backlog. Its own transaction, and each one in progress before it (one per
    // relay run), holds at most the backlog's share: before the share, 499 of the backlog were
    // relayed with it, the time of 500 events' fan-out.
    const [{ before }] = await db.query(
      `SELECT count(*)::int AS before FROM events WHERE tenant_id = $1 AND dispatched_at <= (SELECT dispatched_at FROM events WHERE id = $2)`,
      [session.tenant.id, eventId],
    );
    expect(before).toBeLessThanOrEqual(3 * RELAY_COMPANY_SHARE);
  });

  it('retries non-2xx answers on the schedule and delivers on a later attempt, recording each attempt', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/flaky') });
    let calls = 0;
    receiver.respond = (request) => (request.path === '/flaky' && ++calls <= 2 ? { status: 500, body: `boom ${calls}` } : { status: 204 });
    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');

    const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
    expect(delivery).toMatchObject({ status: 'delivered', attempt: 3, last_response_status: 204 });
    const attempts = await db.query(`SELECT attempt, response_status, response_body FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY attempt`, [delivery.id]);
    expect(attempts).toEqual([
      { attempt: 1, response_status: 500, response_body: 'boom 1' },
      { attempt: 2, response_status: 500, response_body: 'boom 2' },
      { attempt: 3, response_status: 204, response_body: '' },
    ]);
    const ids = new Set(requestsTo('/flaky').map((request) => request.headers['webhook-id']));
    expect(ids.size).toBe(1);
  });

  it('ends failed with gone on 410, without retrying', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/gone') });
    receiver.respond = () => ({ status: 410 });
    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
    const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
    expect(delivery).toMatchObject({ status: 'failed', error_class: 'gone', attempt: 1, last_response_status: 410, next_attempt_at: null });
    expect(requestsTo('/gone')).toHaveLength(1);
  });

  it("records an attempt when PostgreSQL ends the connection recording it, on another one: the event is not sent again", async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/recording-dropped') });
    const drop = await dropFirstWriteOf(db, 'webhook_delivery_attempts', endpoint.id);
    try {
      await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
      const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
      expect(delivery).toMatchObject({ status: 'delivered', attempt: 1, last_response_status: 204 });
      // Two recordings: the one dropped with its connection, and the one kept.
      expect(await drop.writes()).toBe(2);
      expect(await db.query(`SELECT attempt, response_status FROM webhook_delivery_attempts WHERE delivery_id = $1`, [delivery.id])).toEqual([{ attempt: 1, response_status: 204 }]);
      // Before: the outcome was lost with the connection, and the event was sent again once the lease ran out.
      expect(requestsTo('/recording-dropped')).toHaveLength(1);
    } finally {
      await drop.remove();
    }
  });

  it('is dead after the 8th failed attempt; timeouts and refused connections are recorded by kind', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/down') });
    receiver.respond = (request) => (request.path === '/down' ? { status: 503, headers: { 'retry-after': '3600' } } : { status: 204 });
    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
    const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
    expect(delivery).toMatchObject({ status: 'dead', attempt: 8, error_class: null, next_attempt_at: null, last_response_status: 503 });
    const attempts: { started_at: Date }[] = await db.query(`SELECT started_at FROM webhook_delivery_attempts WHERE delivery_id = $1 ORDER BY attempt`, [delivery.id]);
    expect(attempts).toHaveLength(8);
    // Retry-After: 3600 is honoured only up to twice the scheduled wait (30 ms ± 20 %).
    const gaps = attempts.slice(1).map((attempt, i) => attempt.started_at.getTime() - attempts[i].started_at.getTime());
    for (const gap of gaps) expect(gap).toBeLessThan(2000);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(24);

    const slow = await createEndpoint(api.app, owner(), { url: receiver.url('/slow') });
    const closed = await createEndpoint(api.app, owner(), { url: 'http://localhost:9/closed' });
    receiver.respond = (request) => (request.path === '/slow' ? { status: 204, delayMs: 2500 } : { status: 204 });
    await db.query(`UPDATE webhook_endpoints SET status = 'paused' WHERE id = $1`, [endpoint.id]);
    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
    const kinds = await waitFor(
      async () => {
        const rows: { endpoint_id: string; error_kind: string }[] = await db.query(
          `SELECT endpoint_id, error_kind FROM webhook_delivery_attempts WHERE endpoint_id = ANY($1::uuid[]) AND attempt = 1`,
          [[slow.endpoint.id, closed.endpoint.id]],
        );
        return rows.length === 2 && Object.fromEntries(rows.map((row) => [row.endpoint_id, row.error_kind]));
      },
      15_000,
      'first attempts of the slow and closed endpoints',
    );
    expect(kinds).toEqual({ [slow.endpoint.id]: 'timeout', [closed.endpoint.id]: 'connect' });
  });

  it('fails every attempt to a host with only AAAA records (deliveries use IPv4), sending nothing: dead after the 8th', async () => {
    const restore = stubDns(worker, { localhost: ['127.0.0.1'], 'v6only.test': ['2606:2800:220:1:248:1893:25c8:1946'] });
    try {
      const { endpoint } = await createEndpoint(api.app, owner(), { url: 'http://v6only.test/aaaa' });
      await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
      const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
      expect(delivery).toMatchObject({ status: 'dead', attempt: 8, last_response_status: null });
      const kinds: { error_kind: string }[] = await db.query(`SELECT DISTINCT error_kind FROM webhook_delivery_attempts WHERE delivery_id = $1`, [delivery.id]);
      expect(kinds).toEqual([{ error_kind: 'dns' }]);
      expect(requestsTo('/aaaa')).toHaveLength(0);
    } finally {
      restore();
    }
  });

  it('reads at most 20 kB of an answer', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/big') });
    receiver.respond = () => ({ status: 200, body: 'x'.repeat(100_000) });
    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
    const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
    const [attempt] = await db.query(`SELECT length(response_body) AS length FROM webhook_delivery_attempts WHERE delivery_id = $1`, [delivery.id]);
    expect(attempt.length).toBe(20 * 1024);
  });

  it('records a binary answer as text, with NUL and bytes that are not UTF-8 as U+FFFD', async () => {
    const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/binary') });
    receiver.respond = (request) =>
      request.path === '/binary' ? { status: 500, headers: { 'content-type': 'application/octet-stream' }, body: Buffer.from([0x6f, 0x6b, 0x00, 0xff, 0xfe, 0x21]) } : { status: 204 };
    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
    const attempts = await waitFor(
      async () => {
        const rows = await db.query(`SELECT attempt, response_status, response_body FROM webhook_delivery_attempts WHERE endpoint_id = $1 ORDER BY attempt`, [endpoint.id]);
        return rows.length > 0 && rows;
      },
      10_000,
      'the first attempt recorded',
    );
    expect(attempts[0]).toEqual({ attempt: 1, response_status: 500, response_body: 'ok\uFFFD\uFFFD\uFFFD!' });
    // The outcome was recorded with the attempt: the delivery moved on to its retries.
    const [delivery] = await db.query(`SELECT attempt, last_response_status FROM webhook_deliveries WHERE endpoint_id = $1`, [endpoint.id]);
    expect(delivery.attempt).toBeGreaterThanOrEqual(1);
    expect(delivery.last_response_status).toBe(500);
  });

  it('signs with both secrets during a rotation grace, space-separated', async () => {
    const box = api.app.get(WebhookSecretBox);
    const previous = box.generateSecret();
    const { endpoint, secret } = await createEndpoint(api.app, owner(), { url: receiver.url('/rotated') });
    await db.getRepository(WebhookEndpoint).update(endpoint.id, { previousSecretCiphertext: box.seal(previous), previousSecretExpiresAt: new Date(Date.now() + 3600_000) });
    await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
    await settledDeliveries(api.app, endpoint.id, 1);
    const [request] = requestsTo('/rotated');
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => verifyStandard(secret, request)).not.toThrow();
    expect(() => verifyStandard(previous, request)).not.toThrow();
    expect(verifyOhSignature(previous, String(request.headers['x-oh-signature']), request.body)).toBe(true);
  });

  describe('re-checks before every attempt', () => {
    /** An endpoint whose first attempt fails, so its delivery is pending when `change` runs. */
    async function pendingAfterFirstFailure(path: string, values: Parameters<typeof createEndpoint>[2] = { url: receiver.url(path) }) {
      const created = await createEndpoint(api.app, owner(), values);
      let first = true;
      receiver.respond = (request) => (request.path === path && first ? ((first = false), { status: 500, delayMs: 300 }) : { status: 204 });
      await publishEvents(api.app, session.tenant.id, values.eventTypes?.[0] === 'hr.employee.created' ? 'hr.employee.created' : 'fin.invoice.created');
      await waitFor(async () => requestsTo(path).length === 1, 10_000, `the first attempt at ${path}`);
      return created;
    }

    it('a paused endpoint: failed with endpoint_disabled', async () => {
      const { endpoint } = await pendingAfterFirstFailure('/recheck/paused');
      await db.query(`UPDATE webhook_endpoints SET status = 'paused' WHERE id = $1`, [endpoint.id]);
      const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
      expect(delivery).toMatchObject({ status: 'failed', error_class: 'endpoint_disabled', attempt: 1 });
      expect(requestsTo('/recheck/paused')).toHaveLength(1);
    });

    it('a revoked key: failed with api_key_inactive, the endpoint paused with api_key_revoked', async () => {
      const { endpoint } = await pendingAfterFirstFailure('/recheck/revoked');
      await db.query(`UPDATE api_keys SET revoked_at = clock_timestamp() WHERE id = $1`, [session.keyId]);
      const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
      expect(delivery).toMatchObject({ status: 'failed', error_class: 'api_key_inactive' });
      expect(await db.getRepository(WebhookEndpoint).findOneByOrFail({ id: endpoint.id })).toMatchObject({ status: 'paused', disabledReason: 'api_key_revoked' });
    });

    it('a key revoked as key:revoke does it, pausing the endpoint first: failed with api_key_inactive, the cause, not endpoint_disabled', async () => {
      const { endpoint } = await pendingAfterFirstFailure('/recheck/revoked-cli');
      await api.app.get(ApiKeysService).changeState(session.keyId, 'revoked');
      expect(await db.getRepository(WebhookEndpoint).findOneByOrFail({ id: endpoint.id })).toMatchObject({ status: 'paused', disabledReason: 'api_key_revoked' });
      const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
      expect(delivery).toMatchObject({ status: 'failed', error_class: 'api_key_inactive', attempt: 1 });
      expect(requestsTo('/recheck/revoked-cli')).toHaveLength(1);
      // The attempt found it paused already: it says so, so that the pause is logged once, by whoever made it.
      expect(await worker.get(DeliveryStore).pauseForKey(endpoint.id, 'api_key_revoked')).toBe(false);
    });

    it('pauses for a key once: the attempt that pauses the endpoint says so, and no later one', async () => {
      const { endpoint } = await createEndpoint(api.app, owner(), { url: receiver.url('/pause-once') });
      const store = worker.get(DeliveryStore);
      expect(await store.pauseForKey(endpoint.id, 'api_key_inactive')).toBe(true);
      expect(await store.pauseForKey(endpoint.id, 'api_key_revoked')).toBe(false);
      expect(await db.getRepository(WebhookEndpoint).findOneByOrFail({ id: endpoint.id })).toMatchObject({ status: 'paused', disabledReason: 'api_key_inactive' });
    });

    it("a deactivated company: its pending delivery fails with api_key_inactive, and its later events are queued for no endpoint", async () => {
      const { endpoint } = await pendingAfterFirstFailure('/recheck/deactivated');
      await api.app.get(TenantsService).deactivate(session.tenant.id);
      const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
      expect(delivery).toMatchObject({ status: 'failed', error_class: 'api_key_inactive', attempt: 1 });
      const [eventId] = await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
      await waitFor(async () => (await db.query(`SELECT 1 FROM events WHERE id = $1 AND dispatched_at IS NOT NULL`, [eventId])).length === 1);
      // Before: the retry and the new event both went out to the company's receivers after its deactivation.
      expect(await db.query(`SELECT id FROM webhook_deliveries WHERE event_id = $1`, [eventId])).toEqual([]);
      expect(requestsTo('/recheck/deactivated')).toHaveLength(1);
    });

    it('an expired key: failed with api_key_inactive, and its retry pauses the endpoint with api_key_inactive (spec 3: the first event it can no longer receive)', async () => {
      const { endpoint } = await pendingAfterFirstFailure('/recheck/expired');
      await db.query(`UPDATE api_keys SET expires_at = clock_timestamp() WHERE id = $1`, [session.keyId]);
      const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
      expect(delivery).toMatchObject({ status: 'failed', error_class: 'api_key_inactive', attempt: 1 });
      expect(await db.getRepository(WebhookEndpoint).findOneByOrFail({ id: endpoint.id })).toMatchObject({ status: 'paused', disabledReason: 'api_key_inactive' });
    });

    it('a key without the scope: failed with api_key_scope_insufficient', async () => {
      const { endpoint } = await pendingAfterFirstFailure('/recheck/scope');
      await db.query(`UPDATE api_keys SET scopes = '{int:webhooks:manage}' WHERE id = $1`, [session.keyId]);
      const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
      expect(delivery).toMatchObject({ status: 'failed', error_class: 'api_key_scope_insufficient' });
    });

    it('a withdrawn personal-data grant: failed with pii_capability_blocked', async () => {
      const { endpoint } = await pendingAfterFirstFailure('/recheck/pii', { url: receiver.url('/recheck/pii'), eventTypes: ['hr.employee.created'], piiEnabled: true });
      await db.query(`UPDATE webhook_endpoints SET pii_enabled = false WHERE id = $1`, [endpoint.id]);
      const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
      expect(delivery).toMatchObject({ status: 'failed', error_class: 'pii_capability_blocked' });
    });

    it('a URL that now resolves to a private address: failed with ssrf_rejected, no retry, no request', async () => {
      const restore = stubDns(worker, { localhost: ['127.0.0.1'], 'hooks.rebound.test': ['10.1.2.3'] });
      try {
        const { endpoint } = await pendingAfterFirstFailure('/recheck/ssrf');
        await db.query(`UPDATE webhook_endpoints SET url = 'http://hooks.rebound.test/recheck/ssrf' WHERE id = $1`, [endpoint.id]);
        const [delivery] = await settledDeliveries(api.app, endpoint.id, 1);
        expect(delivery).toMatchObject({ status: 'failed', error_class: 'ssrf_rejected', attempt: 2 });
        const [attempt] = await db.query(`SELECT error_kind, response_status FROM webhook_delivery_attempts WHERE delivery_id = $1 AND attempt = 2`, [delivery.id]);
        expect(attempt).toEqual({ error_kind: 'ssrf', response_status: null });
        expect(requestsTo('/recheck/ssrf')).toHaveLength(1);
      } finally {
        restore();
      }
    });
  });
});

describe('webhook delivery: a relay PostgreSQL failed (e2e)', () => {
  let fixture: DeliveryFixture;

  // No sweep within the test: only the relay's own retry can relay the event it failed.
  beforeAll(async () => {
    fixture = await startDeliveryFixture('delivery-relay-retry', { WEBHOOK_SWEEP_INTERVAL_MS: String(3600_000) });
  });
  afterAll(() => fixture.close());

  it('runs again a second later, and delivers the event: not only at the next sweep or event', async () => {
    const { api, receiver, db } = fixture;
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const { endpoint } = await createEndpoint(api.app, { tenantId: session.tenant.id, apiKeyId: session.keyId }, { url: receiver.url('/relay-dropped') });
    const drop = await dropFirstWriteOf(db, 'webhook_deliveries', endpoint.id);
    try {
      const [eventId] = await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
      // Before: the event waited for the next sweep, an hour away here (30 s by default).
      const [delivery] = await settledDeliveries(api.app, endpoint.id, 1, 10_000);
      expect(delivery).toMatchObject({ event_id: eventId, status: 'delivered', attempt: 1 });
      expect(await drop.writes()).toBe(2);
      expect(receiver.requests.filter((request) => request.path === '/relay-dropped')).toHaveLength(1);
    } finally {
      await drop.remove();
    }
  });
});
