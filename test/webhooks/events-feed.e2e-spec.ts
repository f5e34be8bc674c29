import { jest } from '@jest/globals';
import pg from 'pg';
import { DataSource } from 'typeorm';
import type { EventType } from '../../src/platform/catalog/event-types.js';
import { Scope } from '../../src/platform/catalog/scopes.js';
import { EventPublisher, PUBLISHING_HORIZON_SQL, PUBLISHING_LOCK_NAMESPACE } from '../../src/platform/events/event-publisher.service.js';
import { TenantData } from '../../src/platform/tenancy/tenant-data.js';
import { EventRelay } from '../../src/webhooks/delivery/event-relay.service.js';
import { EventsRetentionJob } from '../../src/webhooks/delivery/events-retention.job.js';
import { FEED_PAGE_BYTES, FEED_SQL } from '../../src/webhooks/events-feed/events-feed.service.js';
import { WebhookClock } from '../../src/webhooks/delivery/webhook-clock.js';
import { createEndpoint, type DeliveryFixture, eventData, publishEvents, settledDeliveries, startDeliveryFixture } from '../support/deliveries.js';
import { createTenantSession, type TenantSession } from '../support/tenant-session.js';
import type { TestApi } from '../support/api.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';
import { waitFor } from '../support/wait-for.js';

const DAY = 24 * 3600 * 1000;

/** GET /v1/events and /v1/events/{id}, and the events' retention (issue 18). */
describe('events feed (e2e)', () => {
  let fixture: DeliveryFixture;
  let api: TestApi;
  let receiver: WebhookReceiver;
  let db: DataSource;

  beforeAll(async () => {
    fixture = await startDeliveryFixture('events-feed', { EVENTS_RETENTION_DAYS: '30' });
    ({ api, receiver, db } = fixture);
  });
  afterAll(() => fixture.close());

  const get = (path: string, auth: string) => api.http.get(path).set('Authorization', auth);

  /** Events of several types, one transaction each, oldest first; answers their ids in that order. */
  async function publish(session: TenantSession, types: EventType[]): Promise<string[]> {
    const ids: string[] = [];
    for (const type of types) ids.push(...(await publishEvents(api.app, session.tenant.id, type)));
    return ids;
  }

  /** Gives the events fixed creation times a minute apart (row and envelope alike), in the order given. */
  async function spaceOut(ids: string[]): Promise<string[]> {
    const times = ids.map((_, n) => new Date(Date.UTC(2026, 10, 1, 8, n)).toISOString());
    for (const [n, id] of ids.entries()) {
      await db.query(`UPDATE events SET created_at = $2, envelope = jsonb_set(envelope, '{created_at}', to_jsonb($3::text)) WHERE id = $1`, [id, times[n], times[n]]);
    }
    return times;
  }

  it('lists each event as exactly the object its webhook delivered, newest first, and retrieves it by id', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const { endpoint } = await createEndpoint(api.app, { tenantId: session.tenant.id, apiKeyId: session.keyId }, { url: receiver.url('/feed') });
    const ids = await publish(session, ['fin.invoice.created', 'fin.invoice.created', 'fin.invoice.created']);
    await settledDeliveries(api.app, endpoint.id, 3);

    const listed = await get('/v1/events', session.auth);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(listed.body.data.map((event: { id: string }) => event.id)).toEqual([...ids].reverse());
    const delivered = receiver.requests.filter((one) => one.path === '/feed');
    expect(delivered.map((request) => request.headers['webhook-id']).sort()).toEqual([...ids].sort());
    for (const request of delivered) {
      const item = listed.body.data.find((event: { id: string }) => event.id === request.headers['webhook-id']);
      expect(JSON.stringify(item)).toBe(request.body);
      const one = await get(`/v1/events/${item.id}`, session.auth);
      expect(one.status).toBe(200);
      expect(JSON.stringify(one.body)).toBe(request.body);
    }
    expect(Object.keys(listed.body.data[0])).toEqual(['id', 'type', 'created_at', 'api_version', 'data']);
  });

  it('pages with a cursor; an unreadable one, or one of another key, is 422 events.invalid_cursor', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const ids = await publish(session, ['fin.invoice.created', 'fin.invoice.paid', 'fin.invoice.created']);
    await spaceOut(ids);
    const first = await get('/v1/events?limit=2', session.auth);
    expect(first.body).toMatchObject({ has_more: true });
    const second = await get(`/v1/events?limit=2&cursor=${first.body.next_cursor}`, session.auth);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect([...first.body.data, ...second.body.data].map((event: { id: string }) => event.id)).toEqual([...ids].reverse());

    const other = await session.newKey([Scope.All]);
    for (const [cursor, auth] of [['garbage', session.auth], [first.body.next_cursor, other.auth]]) {
      const refused = await get(`/v1/events?cursor=${cursor}`, auth);
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ detail_key: 'errors.integrations.events.invalid_cursor', field: 'cursor' });
    }
  });

  it('shows a key exactly the events it could subscribe to: a vehicles-only key sees no fin.* event and gets 404 by id', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const [invoice, vehicle, datev, user] = await publish(session, ['fin.invoice.created', 'fm.vehicle.updated', 'datev.export.started', 'identity.user.created']);
    const seen = async (scopes: Scope[]) => {
      const key = await session.newKey(scopes);
      const answer = await get('/v1/events', key.auth);
      expect(answer.status).toBe(200);
      return { ids: answer.body.data.map((event: { id: string }) => event.id).sort(), auth: key.auth };
    };

    const vehicles = await seen([Scope.FmVehiclesRead]);
    expect(vehicles.ids).toEqual([vehicle]);
    const refused = await get(`/v1/events/${invoice}`, vehicles.auth);
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ detail_key: 'errors.integrations.events.not_found', code: 'not_found' });
    expect((await get(`/v1/events/${vehicle}`, vehicles.auth)).status).toBe(200);
    expect((await get('/v1/events?types=fin.invoice.created', vehicles.auth)).body.data).toEqual([]);

    expect((await seen([Scope.FinInvoicesWrite])).ids).toEqual([invoice]);
    expect((await seen([Scope.IdentityUsersRead])).ids).toEqual([user]);
    expect((await seen([Scope.FinInvoicesRead, Scope.FmVehiclesRead, Scope.IdentityUsersRead])).ids).toEqual([invoice, vehicle, user].sort());
    expect((await seen([Scope.All])).ids).toEqual([invoice, vehicle, datev, user].sort());
    expect((await seen([Scope.WebhooksManage])).ids).toEqual([]);
  });

  it('never lists another company’s event, and answers 404 for it by id', async () => {
    const mine = await createTenantSession(api.app, { scopes: [Scope.All] });
    const theirs = await createTenantSession(api.app, { scopes: [Scope.All] });
    const [their] = await publish(theirs, ['fin.invoice.created']);
    const [own] = await publish(mine, ['fin.invoice.created']);
    expect((await get('/v1/events', mine.auth)).body.data.map((event: { id: string }) => event.id)).toEqual([own]);
    expect((await get(`/v1/events/${their}`, mine.auth)).status).toBe(404);
    expect((await get('/v1/events/not-a-uuid', mine.auth)).body).toMatchObject({ status: 422, detail_key: 'errors.common.validation.invalid_input' });
  });

  describe('filters', () => {
    let session: TenantSession;
    let ids: string[];
    let times: string[];
    const types: EventType[] = ['fin.invoice.created', 'fin.invoice.paid', 'datev.export.started', 'fin.invoice.created', 'fin.invoice.paid'];
    const listed = async (query: string, auth = session.auth) => {
      const answer = await get(`/v1/events?${query}`, auth);
      expect(answer.status).toBe(200);
      return answer.body;
    };

    beforeAll(async () => {
      session = await createTenantSession(api.app, { scopes: [Scope.All] });
      ids = await publish(session, types);
      times = await spaceOut(ids);
    });

    it('types: exactly the named catalogue types', async () => {
      const paid = await listed('types=fin.invoice.paid');
      expect(paid.data.map((event: { id: string }) => event.id)).toEqual([ids[4], ids[1]]);
      const two = await listed('types=fin.invoice.paid,%20datev.export.started');
      expect(two.data.map((event: { id: string }) => event.id)).toEqual([ids[4], ids[2], ids[1]]);
    });

    it('since: inclusive, on the event’s time, and combined with types', async () => {
      expect((await listed(`since=${times[2]}`)).data.map((event: { id: string }) => event.id)).toEqual([ids[4], ids[3], ids[2]]);
      expect((await listed(`since=${encodeURIComponent('2026-11-01T09:03:00+01:00')}&types=fin.invoice.created`)).data.map((event: { id: string }) => event.id)).toEqual([ids[3]]);
    });

    it('since: to the microsecond, as events are created', async () => {
      const own = await createTenantSession(api.app, { scopes: [Scope.All] });
      const [older, newer] = await publish(own, ['fin.invoice.created', 'fin.invoice.created']);
      await db.query(`UPDATE events SET created_at = '2026-11-01T09:30:00.123100Z' WHERE id = $1`, [older]);
      await db.query(`UPDATE events SET created_at = '2026-11-01T09:30:00.123900Z' WHERE id = $1`, [newer]);
      expect((await listed('since=2026-11-01T09:30:00.123456Z', own.auth)).data.map((event: { id: string }) => event.id)).toEqual([newer]);
      expect((await listed('since=2026-11-01T09:30:00.123456Z&types=fin.invoice.created', own.auth)).data.map((event: { id: string }) => event.id)).toEqual([newer]);
      expect((await listed(`since=${encodeURIComponent('2026-11-02T01:30:00.1234561+16:00')}`, own.auth)).data.map((event: { id: string }) => event.id)).toEqual([newer]);
    });

    it('combines with the cursor, which is bound to its filters', async () => {
      const seen: string[] = [];
      let body = await listed('types=fin.invoice.created,fin.invoice.paid&limit=1');
      seen.push(...body.data.map((event: { id: string }) => event.id));
      const firstCursor = body.next_cursor;
      while (body.has_more) {
        body = await listed(`types=fin.invoice.created,fin.invoice.paid&limit=1&cursor=${body.next_cursor}`);
        seen.push(...body.data.map((event: { id: string }) => event.id));
      }
      expect(seen).toEqual([ids[4], ids[3], ids[1], ids[0]]);
      for (const query of [`types=fin.invoice.paid&cursor=${firstCursor}`, `cursor=${firstCursor}`, `types=fin.invoice.created,fin.invoice.paid&since=${times[0]}&cursor=${firstCursor}`]) {
        const refused = await get(`/v1/events?${query}`, session.auth);
        expect(refused.status).toBe(422);
        expect(refused.body.detail_key).toBe('errors.integrations.events.invalid_cursor');
      }
    });

    it.each([
      ['types=fin.invoice.paid,fin.invoice.deleted', 'errors.integrations.webhooks.unknown_event_type', { code: 'unknown_event_type', unknown_event_types: ['fin.invoice.deleted'] }],
      ['types=', 'errors.integrations.webhooks.unknown_event_type', { unknown_event_types: [''] }],
      ['since=2026-11-01', 'errors.integrations.webhooks.invalid_since', { code: 'invalid_since', field: 'since' }],
      ['since=yesterday', 'errors.integrations.webhooks.invalid_since', { code: 'invalid_since' }],
      ['since=2026-02-30T00:00:00Z', 'errors.integrations.webhooks.invalid_since', { code: 'invalid_since', field: 'since' }],
      ['since=2026-11-01T24:00:00Z', 'errors.integrations.webhooks.invalid_since', { code: 'invalid_since', field: 'since' }],
      ['types=fin.invoice.paid&types=fin.invoice.created', 'errors.common.validation.invalid_input', { field: 'types' }],
      ['since[gt]=2026-11-01T00:00:00Z', 'errors.common.validation.invalid_input', { field: 'since' }],
      ['limit=ten', 'errors.common.validation.invalid_input', { field: 'limit' }],
    ])('refuses %s with 422 %s', async (query, detailKey, members) => {
      const refused = await get(`/v1/events?${query}`, session.auth);
      expect(refused.status).toBe(422);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body).toMatchObject({ detail_key: detailKey, ...members });
    });
  });

  it('never lists an event above one a transaction still open may commit below it: a reader paging down to an event it has seen misses none', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const other = await createTenantSession(api.app, { scopes: [Scope.All] });
    const [seen] = await publish(session, ['fin.invoice.created']);
    const ids = async (auth = session.auth) => ((await get('/v1/events', auth)).body.data as { id: string }[]).map((item) => item.id);
    expect(await ids()).toEqual([seen]);

    // A transaction inserts its event and stays open; a later one commits a newer event meanwhile.
    let release!: () => void;
    let inserted!: (id: string) => void;
    const insertedId = new Promise<string>((resolve) => (inserted = resolve));
    const slow = api.app.get(TenantData).transaction(session.tenant.id, async (scope) => {
      const envelope = await api.app.get(EventPublisher).publish(scope, 'fin.invoice.updated', await eventData(api.app, 'fin.invoice.updated'));
      inserted(envelope.id);
      await new Promise<void>((resolve) => (release = resolve));
      return envelope.id;
    });
    const late = await insertedId;
    const [newer] = await publish(session, ['fin.invoice.created']);
    const [otherCompanys] = await publish(other, ['fin.invoice.created']);

    // The newer event waits above the open transaction's start, so nothing can later appear below it; another company's feed does not wait.
    expect(await ids()).toEqual([seen]);
    expect(await ids(other.auth)).toEqual([otherCompanys]);
    release();
    await slow;
    const after = (await get('/v1/events', session.auth)).body.data as { id: string; created_at: string }[];
    expect(after.map((item) => item.id)).toEqual([newer, late, seen]);
    expect(after[1].created_at < after[0].created_at).toBe(true);
  });

  it('under concurrent publishing, never answers a horizon below which an event is still to commit, nor an empty one', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const tenantId = session.tenant.id;
    const data = await eventData(api.app, 'fin.invoice.created');
    const connect = async () => {
      const client = new pg.Client({ connectionString: api.config.DATABASE_URL });
      await client.connect();
      return client;
    };
    // A few milliseconds inside a transaction, between its statements: the windows a reader can fall into.
    const pause = (client: pg.Client) => client.query('SELECT pg_sleep(random() * 0.003)');
    let publishing = 4;
    const publisher = async () => {
      for (let transaction = 0; transaction < 40; transaction += 1) {
        await api.app.get(TenantData).transaction(tenantId, async (scope) => {
          for (let event = 0; event < 1 + (transaction % 3); event += 1) {
            await api.app.get(EventPublisher).publish(scope, 'fin.invoice.created', data);
            await scope.query('SELECT $1::uuid, pg_sleep(random() * 0.003)');
          }
        });
      }
      publishing -= 1;
    };
    const observations: { horizon: string | null; seen: Set<string> }[] = [];
    const reader = async () => {
      const [horizons, pages] = [await connect(), await connect()];
      try {
        while (publishing > 0) {
          const [{ horizon }] = (await horizons.query({ name: 'horizon', text: PUBLISHING_HORIZON_SQL, values: [tenantId, PUBLISHING_LOCK_NAMESPACE] })).rows;
          const { rows } = await pages.query(`SELECT id FROM events WHERE tenant_id = $1 AND created_at < ($2::timestamp AT TIME ZONE 'UTC')`, [tenantId, horizon]);
          observations.push({ horizon, seen: new Set(rows.map((row: { id: string }) => row.id)) });
          await pause(pages);
        }
      } finally {
        await Promise.all([horizons.end(), pages.end()]);
      }
    };
    await Promise.all([publisher(), publisher(), publisher(), publisher(), reader(), reader()]);

    expect(observations.length).toBeGreaterThan(20);
    expect(observations.filter((observation) => observation.horizon === null)).toEqual([]);
    // Every event below a horizon once read was visible right after it: none committed below it later.
    for (const { horizon, seen } of observations) {
      const below: { id: string }[] = await db.query(`SELECT id FROM events WHERE tenant_id = $1 AND created_at < ($2::timestamp AT TIME ZONE 'UTC')`, [tenantId, horizon]);
      expect(below.filter((row) => !seen.has(row.id))).toEqual([]);
    }
  });

  it('keeps one time per event, the database’s, in the row and (to the millisecond) the envelope: since compares what the item shows', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const [id] = await publish(session, ['fin.invoice.created']);
    const [item] = (await get('/v1/events', session.auth)).body.data as { id: string; created_at: string }[];
    expect(item.id).toBe(id);
    expect(item.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const [row] = await db.query(`SELECT date_trunc('milliseconds', created_at) = $2::timestamptz AS same FROM events WHERE id = $1`, [id, item.created_at]);
    expect(row.same).toBe(true);
    const since = (at: string) => get(`/v1/events?since=${encodeURIComponent(at)}`, session.auth);
    expect((await since(item.created_at)).body.data.map((event: { id: string }) => event.id)).toEqual([id]);
    expect((await since(new Date(Date.parse(item.created_at) + 1).toISOString())).body.data).toEqual([]);
  });

  it('reads a page from the feed indexes by keyset: no sort, no other company’s rows, at most a page per type', async () => {
    const [mine, theirs] = [await createTenantSession(api.app, { scopes: [Scope.All] }), await createTenantSession(api.app, { scopes: [Scope.All] })];
    for (const tenant of [mine, theirs]) {
      await db.query(
        `INSERT INTO events (id, tenant_id, type, envelope, created_at, dispatched_at)
         SELECT gen_random_uuid(), $1, (ARRAY['fin.invoice.created', 'fin.invoice.paid', 'fm.vehicle.updated'])[1 + g % 3], '{}', now() - g * interval '1 second', now()
           FROM generate_series(1, 3000) g`,
        [tenant.tenant.id],
      );
    }
    await db.query('ANALYZE events');
    const [middle] = await db.query(`SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS at, id FROM events WHERE tenant_id = $1 ORDER BY created_at DESC LIMIT 1 OFFSET 1500`, [mine.tenant.id]);
    const plan = async (sql: string, parameters: unknown[]) => {
      const [row] = await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, [mine.tenant.id, ...parameters]);
      const nodes: Record<string, any>[] = [];
      const walk = (node: Record<string, any>) => {
        nodes.push(node);
        for (const child of node.Plans ?? []) walk(child);
      };
      walk(row['QUERY PLAN'][0].Plan);
      return nodes.filter((node) => node['Relation Name'] === 'events');
    };

    for (const [since, after] of [['-infinity', ['infinity', 'ffffffff-ffff-ffff-ffff-ffffffffffff']], ['2000-01-01T00:00:00Z', [middle.at, middle.id]]]) {
      const [scan, ...others] = await plan(FEED_SQL.everyType, [since, ...after, 51]);
      expect(others).toEqual([]);
      expect(scan).toMatchObject({ 'Node Type': 'Index Scan', 'Index Name': 'events_feed_idx', 'Actual Rows': 51 });
      expect(scan['Rows Removed by Filter'] ?? 0).toBe(0);

      const perType = await plan(FEED_SQL.ofTypes, [['fin.invoice.created', 'fin.invoice.paid'], since, ...after, 51]);
      expect(perType).toHaveLength(1);
      expect(perType[0]).toMatchObject({ 'Node Type': 'Index Scan', 'Index Name': 'events_feed_type_idx', 'Actual Loops': 2, 'Actual Rows': 51 });
      expect(perType[0]['Rows Removed by Filter'] ?? 0).toBe(0);
    }
  });

  it('ends a page early where its envelopes would pass FEED_PAGE_BYTES, with has_more and a cursor that continues after it', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    // Twelve events of about 150 kB each, a minute apart, and one small one before them.
    await db.query(
      `INSERT INTO events (id, tenant_id, type, envelope, created_at, dispatched_at)
       SELECT id, $1, 'fin.invoice.created', jsonb_build_object('id', id, 'type', 'fin.invoice.created', 'created_at', at, 'data', jsonb_build_object('notes', repeat('x', CASE WHEN g = 0 THEN 10 ELSE 150000 END))), at, now()
         FROM (SELECT gen_random_uuid() AS id, g, timestamptz '2026-11-01 08:00:00+00' + g * interval '1 minute' AS at FROM generate_series(0, 12) g) AS events`,
      [session.tenant.id],
    );
    const sizes: { id: string; envelope_bytes: number }[] = await db.query(`SELECT id, envelope_bytes FROM events WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC`, [
      session.tenant.id,
    ]);
    let within = 0;
    for (let total = 0; within < sizes.length && total + sizes[within].envelope_bytes <= FEED_PAGE_BYTES; within += 1) total += sizes[within].envelope_bytes;
    expect(within).toBeGreaterThan(1);
    expect(within).toBeLessThan(12);

    const pages: { id: string }[][] = [];
    let cursor: string | undefined;
    for (const scope of [Scope.All, Scope.FinInvoicesRead]) {
      // A key that sees every type reads one range; a narrower one the per-type ranges: both cut alike.
      const key = scope === Scope.All ? session : await session.newKey([scope]);
      pages.length = 0;
      do {
        const page = await get(`/v1/events?limit=50${cursor ? `&cursor=${cursor}` : ''}`, key.auth);
        expect(page.status).toBe(200);
        pages.push(page.body.data);
        cursor = page.body.next_cursor ?? undefined;
      } while (cursor);
      expect(pages.map((page) => page.length)).toEqual([within, sizes.length - within]);
      expect(pages.flat().map((event) => event.id)).toEqual(sizes.map((row) => row.id));
    }
  });

  it('retention (on an injected clock): deletes old events in batches with their deliveries, keeping one with a pending delivery', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const { endpoint } = await createEndpoint(api.app, { tenantId: session.tenant.id, apiKeyId: session.keyId }, { url: receiver.url('/retention') });
    const [delivered, pending] = await publish(session, ['fin.invoice.created', 'fin.invoice.created']);
    const original = (await settledDeliveries(api.app, endpoint.id, 2)).find((row) => row.event_id === delivered)!;
    const replay = await api.http.post(`/v1/webhook_endpoints/${endpoint.id}/deliveries/${original.id}/replay`).set('Authorization', session.auth);
    expect(replay.status).toBe(202);
    await settledDeliveries(api.app, endpoint.id, 3);
    // Past their retention by far, more than one batch of them: a company's long history.
    await db.query(
      `INSERT INTO events (id, tenant_id, type, envelope, created_at, dispatched_at)
       SELECT gen_random_uuid(), $1, 'fin.invoice.created', '{}', now() - interval '60 days', now() - interval '60 days' FROM generate_series(1, 1500)`,
      [session.tenant.id],
    );
    const [{ last }] = await db.query(`SELECT max(created_at) AS last FROM events WHERE id = ANY($1)`, [[delivered, pending]]);
    await waitFor(async () => (await db.query(`SELECT clock_timestamp() > $1::timestamptz + interval '5 milliseconds' AS later`, [last]))[0].later);
    const [recent] = await publish(session, ['fin.invoice.created']);
    await settledDeliveries(api.app, endpoint.id, 4);
    await db.query(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now() + interval '1 day' WHERE event_id = $1`, [pending]);
    const [{ at }] = await db.query(`SELECT created_at AS at FROM events WHERE id = $1`, [recent]);

    // The clock stands 30 days after a moment between the older events and the recent one.
    const clock = jest.spyOn(fixture.worker.get(WebhookClock), 'now').mockReturnValue(new Date(at.getTime() - 2 + 30 * DAY));
    try {
      // Other tests' events are past it too: the job serves every company.
      expect((await fixture.worker.get(EventsRetentionJob).run()).deleted).toBeGreaterThanOrEqual(1501);
    } finally {
      clock.mockRestore();
    }
    const left = await db.query(`SELECT id FROM events WHERE tenant_id = $1 ORDER BY created_at`, [session.tenant.id]);
    expect(left.map((row: { id: string }) => row.id)).toEqual([pending, recent]);
    const deliveries = await db.query(`SELECT event_id FROM webhook_deliveries WHERE endpoint_id = $1`, [endpoint.id]);
    expect(deliveries.map((row: { event_id: string }) => row.event_id).sort()).toEqual([pending, recent].sort());
    expect(await db.query(`SELECT count(*)::int AS n FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.event_id = $1`, [delivered])).toEqual([{ n: 0 }]);
    expect(await db.query(`SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE delivery_id = ANY($1)`, [[original.id, replay.body.id]])).toEqual([{ n: 0 }]);
    expect((await get(`/v1/events/${delivered}`, session.auth)).status).toBe(404);
    expect((await get(`/v1/events/${pending}`, session.auth)).status).toBe(200);
  });

  it('retention: keeps each endpoint’s status at the cutoff and every change since, and drops the changes before it', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const { endpoint } = await createEndpoint(api.app, { tenantId: session.tenant.id, apiKeyId: session.keyId }, { url: receiver.url('/status-history') });
    await db.query(
      `INSERT INTO webhook_endpoint_status_changes (tenant_id, endpoint_id, changed_at, status)
       VALUES ($1, $2, now() - interval '90 days', 'active'), ($1, $2, now() - interval '60 days', 'paused'), ($1, $2, now() - interval '40 days', 'active'),
              ($1, $2, now() - interval '10 days', 'paused'), ($1, $2, now() - interval '9 days', 'active')`,
      [session.tenant.id, endpoint.id],
    );
    await fixture.worker.get(EventsRetentionJob).run();
    const left = await db.query(
      `SELECT status, round(extract(epoch FROM now() - changed_at) / 86400)::int AS days_ago FROM webhook_endpoint_status_changes WHERE endpoint_id = $1 ORDER BY changed_at`,
      [endpoint.id],
    );
    expect(left).toEqual([
      { status: 'active', days_ago: 40 },
      { status: 'paused', days_ago: 10 },
      { status: 'active', days_ago: 9 },
      { status: 'active', days_ago: 0 },
    ]);
  });

  /** Runs the retention job while an event of the company's from 50 days ago waits to be relayed (no worker relays meanwhile). */
  async function retentionBeside50DayOldEvent(tenantId: string): Promise<void> {
    const relay = jest.spyOn(fixture.worker.get(EventRelay), 'relayBatch').mockResolvedValue(false);
    // A relay run already under way (a sweep's) calls the real batch: it could take the event.
    await Promise.all((fixture.worker.get(EventRelay) as unknown as { running: Set<Promise<void>> }).running);
    const [{ id }] = await db.query(
      `INSERT INTO events (id, tenant_id, type, envelope, created_at) VALUES (gen_random_uuid(), $1, 'fin.invoice.created', '{}', now() - interval '50 days') RETURNING id`,
      [tenantId],
    );
    try {
      await fixture.worker.get(EventsRetentionJob).run();
    } finally {
      relay.mockRestore();
      await db.query('DELETE FROM events WHERE id = $1', [id]);
    }
  }

  it('retention: keeps the status history an event still to relay needs, however old', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const { endpoint } = await createEndpoint(api.app, { tenantId: session.tenant.id, apiKeyId: session.keyId }, { url: receiver.url('/status-history-unrelayed') });
    await db.query(
      `INSERT INTO webhook_endpoint_status_changes (tenant_id, endpoint_id, changed_at, status)
       VALUES ($1, $2, now() - interval '90 days', 'active'), ($1, $2, now() - interval '60 days', 'paused'), ($1, $2, now() - interval '40 days', 'active')`,
      [session.tenant.id, endpoint.id],
    );
    // No worker relays meanwhile: an event of 50 days ago, during the pause, waits to be relayed.
    await retentionBeside50DayOldEvent(session.tenant.id);
    const left = await db.query(
      `SELECT status, round(extract(epoch FROM now() - changed_at) / 86400)::int AS days_ago FROM webhook_endpoint_status_changes WHERE endpoint_id = $1 ORDER BY changed_at`,
      [endpoint.id],
    );
    expect(left.map((row: { status: string; days_ago: number }) => `${row.status} ${row.days_ago}`)).toEqual(['paused 60', 'active 40', 'active 0']);
  });

  it('retention: drops the subscription history older than the cutoff, keeping what an event still to relay needs', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const { endpoint } = await createEndpoint(api.app, { tenantId: session.tenant.id, apiKeyId: session.keyId }, { url: receiver.url('/subscription-history') });
    const insert = (daysAgo: number[]) =>
      db.query(
        `INSERT INTO webhook_endpoint_subscription_changes (tenant_id, endpoint_id, changed_at, previous_event_types)
         SELECT $1, $2, now() - make_interval(days => d), ARRAY['fin.invoice.created'] FROM unnest($3::int[]) AS d`,
        [session.tenant.id, endpoint.id, daysAgo],
      );
    const left = async () =>
      (await db.query(`SELECT round(extract(epoch FROM now() - changed_at) / 86400)::int AS days_ago FROM webhook_endpoint_subscription_changes WHERE endpoint_id = $1 ORDER BY changed_at`, [endpoint.id])).map(
        (row: { days_ago: number }) => row.days_ago,
      );
    await insert([90, 60, 40, 10]);
    await fixture.worker.get(EventsRetentionJob).run();
    expect(await left()).toEqual([10]);
    // An event of 50 days ago still to relay is judged by the change after it: that one stays.
    await insert([60, 40]);
    await retentionBeside50DayOldEvent(session.tenant.id);
    expect(await left()).toEqual([40, 10]);
  });

  it("retention: checking that no delivery still names a deleted event looks the event's deliveries up by event", async () => {
    // The statement PostgreSQL runs for the foreign key webhook_deliveries → events, once per
    // deleted event; with scans ruled out, as on a table too large for one. Without an index
    // led by event_id it walks every delivery of the company (or of all companies).
    const plan = await db.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      const [row] = await manager.query(`EXPLAIN (FORMAT JSON) SELECT 1 FROM ONLY webhook_deliveries x WHERE tenant_id = $1 AND event_id = $2 FOR KEY SHARE OF x`, [
        '00000000-0000-4000-8000-000000000001',
        '00000000-0000-4000-8000-000000000002',
      ]);
      return row['QUERY PLAN'][0].Plan as Record<string, any>;
    });
    const nodes: Record<string, any>[] = [];
    const walk = (node: Record<string, any>) => {
      nodes.push(node);
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(plan);
    const scans = nodes.filter((node) => node['Relation Name'] === 'webhook_deliveries');
    expect(scans).toHaveLength(1);
    expect(scans[0]).toMatchObject({ 'Node Type': 'Index Scan', 'Index Name': 'webhook_deliveries_event_idx' });
    expect(scans[0]['Index Cond']).toContain('event_id');
  });
});
