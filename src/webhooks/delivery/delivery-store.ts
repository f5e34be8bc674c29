import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../platform/config/app-config.js';
import { withSessionSettings } from '../../platform/database/database.js';
import { hotQuery, hotQueryIn } from '../../platform/database/hot-query.js';
import { isTransientFault } from '../../platform/errors/transient-faults.js';
import type { EventEnvelope } from '../../platform/events/event-envelope.js';
import type { WebhookEndpointStatus } from '../webhook-endpoint.entity.js';
import { STREAK_SQL, STREAK_STATEMENT } from './auto-disable.service.js';
import { StatementBatcher } from './statement-batcher.js';
import type { DeliveryErrorClass, DeliveryStatus } from './webhook-delivery.entity.js';
import type { KeyColumns, KeyPauseReason } from './webhook-entitlement.js';
import type { SendErrorKind } from './webhook-sender.js';

/** Names of the attempt's two prepared statements (DELIVERY_SQL). */
const LEASE_STATEMENT = 'webhook-delivery-claim';
const FINISH_STATEMENT = 'webhook-delivery-finish';
/** The worker's session settings: see DeliveryStore. */
const WORKER_SESSION: Readonly<Record<string, string>> = { synchronous_commit: 'off', enable_seqscan: 'off', plan_cache_mode: 'force_generic_plan' };
/** Extra time an attempt's lease lasts beyond the receiver timeout, for recording the outcome. */
const LEASE_MARGIN_MS = 5000;
/** A delivery may be leased this much before its next_attempt_at (timer and clock granularity). */
const EARLY_TOLERANCE_MS = 50;
/**
 * Under load, an outcome waits this long for others to share its statement. It is off the
 * attempt's critical path (the endpoint's slot is free before it is recorded), and outcomes
 * 4 to a statement were a quarter of a burst's cost: about 10 % more deliveries/s.
 */
const FINISH_LINGER_MS = 3;
/**
 * Waits before an outcome's statement is tried again after PostgreSQL failed it for a moment (a
 * connection ended by a failover or a restart, a deadlock, a statement timeout). Lost, the
 * outcome would leave its delivery pending under its lease, and the receiver that already had
 * the event would get it again once the lease ran out. The statement is safe to repeat: it
 * records only while the attempt's lease token holds, which its first run, had it committed
 * unseen, has cleared. Short beside the lease's margin (LEASE_MARGIN_MS).
 */
const FINISH_RETRY_DELAYS_MS = [50, 250, 1000];
/** Events taken per relay transaction. */
const RELAY_BATCH = 500;
/**
 * A company's events per relay transaction at most. Another company's event waits for the relay
 * transactions in progress to end, and a transaction lasts as long as its largest share takes to
 * fan out: a backlog filling whole transactions with 500 events to five endpoints held every
 * other company's events back 1-2 s for as long as it was relayed (a review measured it); with
 * 100, another company's relay took at most 150-160 ms instead of 360-390 (docs/webhooks.md). A
 * backlog alone still moves at a hundred events per transaction's fixed cost (three statements
 * and a commit, about 3 ms).
 */
export const RELAY_COMPANY_SHARE = 100;
/** Pending deliveries the sweep offers again per statement. */
export const SWEEP_BATCH = 2000;

/**
 * The two statements of every attempt, by name for the plan test. Each addresses deliveries by
 * `id = ANY($1)` (repeated in the join) so that PostgreSQL looks them up by primary key.
 */
export const DELIVERY_SQL = {
  /** Leases the deliveries still pending, due and unleased, and brings back what sending needs. */
  lease: `WITH wanted AS (
     SELECT d.id FROM webhook_deliveries d
      WHERE d.id = ANY($1::uuid[]) AND d.next_attempt_at <= clock_timestamp() + $4 * interval '1 millisecond'
        AND (d.leased_until IS NULL OR d.leased_until < clock_timestamp())
        FOR UPDATE SKIP LOCKED
   ), claimed AS (
     UPDATE webhook_deliveries d SET leased_until = clock_timestamp() + $3 * interval '1 millisecond', lease_token = x.token
       FROM wanted w JOIN unnest($1::uuid[], $2::uuid[]) AS x(id, token) ON x.id = w.id
      WHERE d.id = w.id AND d.id = ANY($1::uuid[])
      RETURNING d.id, d.lease_token, d.tenant_id, d.endpoint_id, d.event_id, d.event_type, d.api_version, d.attempt, d.replayed_from
   )
   SELECT c.id, c.lease_token, c.tenant_id, c.endpoint_id, c.event_type, c.api_version, c.attempt, c.replayed_from, e.envelope,
          w.url, w.status AS endpoint_status, w.pii_enabled, w.secret_ciphertext, w.previous_secret_ciphertext,
          w.previous_secret_expires_at, k.scopes, k.revoked_at, k.expires_at, k.deleted_at, t.active AS tenant_active
     FROM claimed c
     JOIN tenants t ON t.id = c.tenant_id
     JOIN events e ON e.tenant_id = c.tenant_id AND e.id = c.event_id
     JOIN webhook_endpoints w ON w.tenant_id = c.tenant_id AND w.id = c.endpoint_id
     LEFT JOIN api_keys k ON k.tenant_id = w.tenant_id AND k.id = w.api_key_id`,
  /** Records each attempt and the delivery's new state, only where its lease token still holds. */
  finish: `WITH x AS (
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::int[], $5::timestamptz[], $6::int[], $7::int[], $8::text[], $9::text[], $10::text[], $11::float8[])
       AS x(id, token, status, attempt, started_at, duration_ms, response_status, error_kind, response_body, error_class, retry_in_ms)
   ), recorded AS (
     INSERT INTO webhook_delivery_attempts (tenant_id, delivery_id, endpoint_id, attempt, started_at, duration_ms, response_status, error_kind, response_body)
     SELECT d.tenant_id, d.id, d.endpoint_id, x.attempt, x.started_at, x.duration_ms, x.response_status, x.error_kind, x.response_body
       FROM x JOIN webhook_deliveries d ON d.id = x.id AND d.lease_token = x.token
      WHERE x.attempt IS NOT NULL AND d.id = ANY($1::uuid[])
   )
   UPDATE webhook_deliveries d
      SET status = x.status, attempt = coalesce(x.attempt, d.attempt), error_class = x.error_class,
          next_attempt_at = CASE WHEN x.status = 'pending' THEN clock_timestamp() + x.retry_in_ms * interval '1 millisecond' END,
          last_response_status = CASE WHEN x.attempt IS NULL THEN d.last_response_status ELSE x.response_status END,
          leased_until = NULL, lease_token = NULL, updated_at = clock_timestamp()
     FROM x
    WHERE d.id = x.id AND d.lease_token = x.token AND d.id = ANY($1::uuid[])
    RETURNING x.token AS lease_token`,
};

/** What one lease of a delivery brings back: the delivery, its event, endpoint and owning key. */
export interface LeasedDelivery extends KeyColumns {
  id: string;
  tenant_id: string;
  endpoint_id: string;
  event_type: string;
  api_version: string;
  attempt: number;
  replayed_from: string | null;
  envelope: EventEnvelope;
  url: string;
  endpoint_status: WebhookEndpointStatus;
  pii_enabled: boolean;
  secret_ciphertext: Buffer;
  previous_secret_ciphertext: Buffer | null;
  previous_secret_expires_at: Date | null;
}

export interface Outcome {
  status: DeliveryStatus;
  errorClass: DeliveryErrorClass | null;
  /** Milliseconds until the next attempt, when one follows. */
  retryInMs: number | null;
}

export type AttemptRecord = { startedAt: Date; durationMs: number } & (
  | { responseStatus: number; body: string; retryAfter: string | undefined }
  | { errorKind: SendErrorKind }
);

export interface Finish {
  deliveryId: string;
  token: string;
  outcome: Outcome;
  record: (AttemptRecord & { attempt: number }) | null;
}

/** An event and one active endpoint subscribed to its type, with the endpoint's owning key, for the relay's fan-out. */
export interface RelayCandidate extends KeyColumns {
  event_id: string;
  event_created_at: Date;
  event_type: string;
  tenant_id: string;
  endpoint_id: string;
  /** Its status when the event happened (ACTIVE_AT_EVENT): the only candidates are endpoints active then. */
  endpoint_status: 'active';
  pii_enabled: boolean;
  pinned_version: string | null;
}

/**
 * The endpoint `w` was active when the event `e` happened: it is active and has not changed
 * since, or its status history says so (webhook_endpoint_status_changes; an endpoint is created
 * active). The history is read only for an endpoint whose status changed after the event, which
 * a relay running behind (no worker, a backlog) meets: an event of a pause is not delivered after
 * the resume, and one from before a pause becomes a delivery that ends `endpoint_disabled` and
 * can be replayed (spec 3, rules 1 and 3).
 */
const ACTIVE_AT_EVENT = `(w.status_changed_at <= e.created_at OR coalesce((
    SELECT h.status FROM webhook_endpoint_status_changes h
     WHERE h.endpoint_id = w.id AND h.changed_at <= e.created_at ORDER BY h.changed_at DESC LIMIT 1), 'active') = 'active')`;

/**
 * The endpoint `w` subscribed to the event `e`'s type when the event happened: by its event types
 * if they have not changed since, else by those the first change after the event replaced
 * (webhook_endpoint_subscription_changes), read only for an endpoint whose types changed after
 * the event, as a relay running behind meets.
 */
const SUBSCRIBED_AT_EVENT = `(CASE WHEN w.event_types_changed_at IS NULL OR w.event_types_changed_at <= e.created_at
      THEN e.type = ANY (w.event_types) OR '*' = ANY (w.event_types)
      ELSE (SELECT e.type = ANY (h.previous_event_types) OR '*' = ANY (h.previous_event_types) FROM webhook_endpoint_subscription_changes h
             WHERE h.endpoint_id = w.id AND h.changed_at > e.created_at ORDER BY h.changed_at LIMIT 1) END)`;

/**
 * A relay's candidates among the endpoints `which` selects: the endpoints of each event's
 * company created before it, subscribed to it and active at its time, with their owning key. The relay
 * asks twice, for the active endpoints and for the others that changed status since the event
 * (and so since the batch's oldest event: a range of their partial index), so that no company's
 * deleted endpoints are walked. The events come as arrays of the columns the relay locked them
 * with (RELAY_SQL.undispatched), not as ids to look up again: the statement's plan, made once per
 * connection, then never depends on how many events the table held when it was made.
 */
const candidatesAmong = (which: string) => `
  SELECT e.id AS event_id, e.created_at AS event_created_at, e.type AS event_type, e.tenant_id,
         w.id AS endpoint_id, 'active' AS endpoint_status, w.pii_enabled, w.pinned_version,
         k.scopes, k.revoked_at, k.expires_at, k.deleted_at, t.active AS tenant_active
    FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::text[]) AS e(id, tenant_id, created_at, type)
    JOIN tenants t ON t.id = e.tenant_id
    JOIN webhook_endpoints w ON w.tenant_id = e.tenant_id AND ${which} AND w.created_at < e.created_at AND ${SUBSCRIBED_AT_EVENT}
    LEFT JOIN api_keys k ON k.id = w.api_key_id AND k.tenant_id = w.tenant_id
   WHERE ${ACTIVE_AT_EVENT}`;

/**
 * The candidates of the events whose ids, companies, times and types are `$1`-`$4`, oldest event
 * first (exported for the test that reads its plan).
 */
export const RELAY_CANDIDATES_SQL = `${candidatesAmong(`w.status = 'active'`)}
  UNION ALL
  ${candidatesAmong(`w.status <> 'active' AND w.status_changed_at > e.created_at AND w.status_changed_at > (SELECT min(c) FROM unnest($3::timestamptz[]) AS c)`)}
  ORDER BY event_created_at, event_id`;

/**
 * The relay's cursor before its first transaction: the lowest uuid, so that the companies above
 * it are all of them (but one whose id were this, which the part up to it then takes).
 */
const NO_COMPANY = '00000000-0000-0000-0000-000000000000';

/**
 * The relay transaction's other statements, prepared on each worker session as RELAY_STATEMENTS
 * names them, as the candidates are (sent unnamed, parsing and planning the candidates afresh was
 * 2 of the 8 ms from an event's commit to its arrival). Their plans are generic (see
 * DeliveryStore), so no condition tests whether a parameter is null (that makes the bound a
 * filter instead of a range of the index): the cursor is always a company id.
 */
export const RELAY_SQL = {
  /**
   * Up to `$2` undispatched events, locked, with their company, time and type, company by company
   * in id order, at most `$3` of each company, each company's oldest first: the companies above `$1` first, then from the first company up to `$1`
   * (wrapping around). The companies are found one index probe at a time (a skip scan), and the
   * second part is read only if the first leaves room, so only as many companies as the events
   * taken need are visited.
   */
  undispatched: `WITH RECURSIVE above AS (
       (SELECT tenant_id FROM events WHERE dispatched_at IS NULL AND tenant_id > $1 ORDER BY tenant_id LIMIT 1)
       UNION ALL
       SELECT (SELECT e.tenant_id FROM events e WHERE e.dispatched_at IS NULL AND e.tenant_id > above.tenant_id ORDER BY e.tenant_id LIMIT 1)
         FROM above WHERE above.tenant_id IS NOT NULL
     ), up_to AS (
       (SELECT tenant_id FROM events WHERE dispatched_at IS NULL AND tenant_id <= $1 ORDER BY tenant_id LIMIT 1)
       UNION ALL
       SELECT (SELECT e.tenant_id FROM events e WHERE e.dispatched_at IS NULL AND e.tenant_id > up_to.tenant_id AND e.tenant_id <= $1 ORDER BY e.tenant_id LIMIT 1)
         FROM up_to WHERE up_to.tenant_id IS NOT NULL
     ), company AS (
       SELECT tenant_id FROM above WHERE tenant_id IS NOT NULL
       UNION ALL
       SELECT tenant_id FROM up_to WHERE tenant_id IS NOT NULL
     )
     SELECT taken.id, company.tenant_id, taken.created_at, taken.type FROM company
      CROSS JOIN LATERAL (
        -- The time as text: exact to the microsecond when it comes back as a parameter (a Date is not).
        SELECT id, created_at::text AS created_at, type FROM events
         WHERE tenant_id = company.tenant_id AND dispatched_at IS NULL
         ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED
      ) AS taken
      LIMIT $2`,
  /** Creates the deliveries (unique per event and endpoint) and marks the events `$7` dispatched. */
  dispatch: `WITH dispatched AS (UPDATE events SET dispatched_at = statement_timestamp() WHERE id = ANY($7::uuid[]))
     INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, api_version, personal_data, next_attempt_at)
     SELECT t, en, ev, ty, v, p, clock_timestamp()
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::boolean[]) AS x(t, en, ev, ty, v, p)
     ON CONFLICT (event_id, endpoint_id) WHERE replayed_from IS NULL DO NOTHING
     RETURNING id, endpoint_id`,
};

/** Names of the relay's prepared statements. */
const RELAY_STATEMENTS = { undispatched: 'webhook-relay-undispatched', candidates: 'webhook-relay-candidates', dispatch: 'webhook-relay-dispatch' } as const;

/** Spec 3: an active endpoint whose owning key can no longer receive events becomes paused, with the reason. */
const PAUSE_FOR_KEY_SQL = `UPDATE webhook_endpoints SET status = 'paused', disabled_reason = $2, status_changed_at = clock_timestamp(), updated_at = clock_timestamp()
   WHERE id = $1 AND status = 'active'`;

/** What the relay decided for one batch of events: the deliveries to create and the endpoints to pause. */
export interface FanOut {
  deliveries: { tenantId: string; endpointId: string; eventId: string; eventType: string; apiVersion: string; personal: boolean }[];
  paused: Map<string, KeyPauseReason>;
}

export interface DeliveryRef {
  id: string;
  endpoint_id: string;
}

/**
 * The delivery worker's SQL, all of it: the one place in a feature that reads and writes every
 * company's rows at once, as the worker must (it serves a queue of all companies). It never
 * filters by a company because it never needs to choose one: the relay takes whatever events are
 * undispatched, a lease and an outcome address one delivery by the id the gate granted (and its
 * lease token), and every join is on the row's own `tenant_id`, so no statement can pair one
 * company's delivery with another's endpoint, event or key.
 *
 * The worker's sessions run with `synchronous_commit = off`. Each delivery commits twice (lease,
 * outcome); waiting for the WAL flush on each is most of an attempt's database time. It is safe
 * because every worker write is redone when lost: a crash of PostgreSQL can lose the last few
 * hundred milliseconds of commits, whole transactions at a time, so events come back
 * undispatched and are relayed again, a lost lease only lets the delivery be taken again, and a
 * lost outcome makes the delivery be sent again — at least once, as the receiver is promised
 * (spec 6.7).
 *
 * They also run with `enable_seqscan = off`. The attempt's statements are prepared once per
 * connection, and after five runs PostgreSQL may keep a generic plan for the connection's life.
 * Made while the table is young (a new deployment, the minutes before autovacuum analyses it),
 * that plan reads every delivery: each lease and each outcome scanned the whole table (1-2 ms
 * at 10,000 deliveries, growing with it) instead of a few primary-key lookups (0.15 ms). Every
 * statement here has an index for its condition, so forbidding the scan costs nothing where it
 * would be right.
 *
 * And with `plan_cache_mode = force_generic_plan`: the prepared statements (the attempt's and the
 * relay's) are planned once per connection. Left to choose, PostgreSQL planned the relay's
 * candidates afresh at every run (its custom plan for one event looks cheaper than the generic
 * one), about 1 ms of a relay transaction that took an event to its deliveries in 3.5. The generic
 * plans are the same index lookups whatever the ids (test/webhooks/delivery-plans.e2e-spec.ts).
 * Statements sent without a name are planned for their parameters as before.
 *
 * The API never shares these sessions: it lives in another Nest context with its own pool.
 */
@Injectable()
export class DeliveryStore implements OnModuleInit {
  private readonly leases = new StatementBatcher((calls: { deliveryId: string; token: string }[]) => this.leaseMany(calls));
  private readonly finishes = new StatementBatcher((calls: Finish[]) => this.finishMany(calls), 100, FINISH_LINGER_MS);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  /**
   * Every connection the worker's pool opens from now on starts with the settings (the startup
   * packet's `options`: no statement, no race with the first query); the ones already open,
   * such as the one TypeORM opened at start-up before this store existed, are set here.
   *
   * The whole pool is opened now, and each connection prepares the attempt's two statements, the
   * relay's three and auto-disable's streak (run for no delivery, event or endpoint: nothing is
   * leased, recorded, relayed or judged). Opened later, a connection comes at the worst moment:
   * when a dead receiver's requests all time out at once, the worker's demand for connections
   * jumps, and each new one cost its caller a backend start and a first parse on cold catalog
   * caches (about 10 ms), on the path of every other company's delivery.
   */
  async onModuleInit(): Promise<void> {
    const pool = (this.dataSource.driver as unknown as { master: Pool }).master;
    pool.options.connectionString = withSessionSettings(pool.options.connectionString!, WORKER_SESSION);
    const sessions = await Promise.all(Array.from({ length: pool.options.max ?? 10 }, () => pool.connect()));
    try {
      await Promise.all(
        sessions.map(async (client) => {
          for (const [name, value] of Object.entries(WORKER_SESSION)) await client.query(`SET ${name} = ${value}`);
          await client.query({ name: LEASE_STATEMENT, text: DELIVERY_SQL.lease, values: this.leaseParameters([]) });
          await client.query({ name: FINISH_STATEMENT, text: DELIVERY_SQL.finish, values: this.finishParameters([]) });
          await client.query({ name: RELAY_STATEMENTS.undispatched, text: RELAY_SQL.undispatched, values: [NO_COMPANY, 0, 0] });
          await client.query({ name: RELAY_STATEMENTS.candidates, text: RELAY_CANDIDATES_SQL, values: [[], [], [], []] });
          await client.query({ name: RELAY_STATEMENTS.dispatch, text: RELAY_SQL.dispatch, values: [[], [], [], [], [], [], []] });
          await client.query({ name: STREAK_STATEMENT, text: STREAK_SQL, values: [NO_COMPANY, NO_COMPANY, 0, 0] });
        }),
      );
    } finally {
      for (const client of sessions) client.release();
    }
  }

  /**
   * Leases the delivery for one attempt if it is pending, due, and not leased by another; undefined
   * otherwise. Batched: one statement leases every delivery whose attempt asked meanwhile. A row
   * locked by another transaction at that moment is skipped (never waited for, so two batches
   * cannot deadlock). "Pending" is tested as `next_attempt_at` being set
   * (equivalent by the table's check constraint), not as `status = 'pending'`: that test let
   * PostgreSQL pick the index of pending deliveries, which its statistics still showed nearly
   * empty during a burst, and scan every pending delivery for each batch.
   */
  lease(deliveryId: string, token: string): Promise<LeasedDelivery | undefined> {
    return this.leases.submit({ deliveryId, token });
  }

  private async leaseMany(calls: { deliveryId: string; token: string }[]): Promise<(LeasedDelivery | undefined)[]> {
    const rows = await hotQuery<LeasedDelivery & { lease_token: string }>(this.dataSource, LEASE_STATEMENT, DELIVERY_SQL.lease, this.leaseParameters(calls));
    // The same delivery asked twice in one batch is leased once: only the token written wins.
    const byToken = new Map(rows.map(({ lease_token, ...row }) => [lease_token, row]));
    return calls.map((call) => byToken.get(call.token));
  }

  private leaseParameters(calls: { deliveryId: string; token: string }[]): unknown[] {
    return [calls.map((call) => call.deliveryId), calls.map((call) => call.token), this.config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS, EARLY_TOLERANCE_MS];
  }

  /**
   * Pauses an active endpoint whose key can no longer receive its events, found at an attempt
   * (a retry or replay after the key expired or was deleted) rather than by the relay. Answers
   * whether this call paused it.
   */
  async pauseForKey(endpointId: string, reason: KeyPauseReason): Promise<boolean> {
    // TypeORM answers an UPDATE with [rows, affected rows].
    const [, paused] = (await this.dataSource.query(PAUSE_FOR_KEY_SQL, [endpointId, reason])) as [unknown[], number];
    return paused > 0;
  }

  /** For a delivery that could not be leased: null if it has ended, else when (epoch ms) it is due or its lease ends. */
  async dueAgainAt(deliveryId: string): Promise<number | null> {
    const [row] = await this.dataSource.query(
      `SELECT status, extract(epoch FROM greatest(next_attempt_at, leased_until) - clock_timestamp()) * 1000 AS wait_ms
         FROM webhook_deliveries WHERE id = $1`,
      [deliveryId],
    );
    if (!row || row.status !== 'pending') return null;
    return Date.now() + Math.max(10, Math.ceil(Number(row.wait_ms)));
  }

  /**
   * Records the attempt (if one was made) and the delivery's new state in one statement, and
   * releases the lease, only if this attempt still holds it. Batched like the lease. Answers
   * whether it was recorded.
   */
  finish(call: Finish): Promise<boolean> {
    return this.finishes.submit(call);
  }

  private async finishMany(calls: Finish[]): Promise<boolean[]> {
    const parameters = this.finishParameters(calls);
    for (let retry = 0; ; retry++) {
      try {
        const updated = await hotQuery<{ lease_token: string }>(this.dataSource, FINISH_STATEMENT, DELIVERY_SQL.finish, parameters);
        const done = new Set(updated.map((row) => row.lease_token));
        return calls.map((call) => done.has(call.token));
      } catch (error) {
        if (retry === FINISH_RETRY_DELAYS_MS.length || !isTransientFault(error)) throw error;
        await sleep(FINISH_RETRY_DELAYS_MS[retry]);
      }
    }
  }

  private finishParameters(calls: Finish[]): unknown[] {
    const column = <T>(pick: (call: Finish) => T) => calls.map(pick);
    return [
      column((call) => call.deliveryId),
      column((call) => call.token),
      column((call) => call.outcome.status),
      column((call) => call.record?.attempt ?? null),
      column((call) => call.record?.startedAt ?? null),
      column((call) => call.record?.durationMs ?? null),
      column((call) => (call.record && 'responseStatus' in call.record ? call.record.responseStatus : null)),
      column((call) => (call.record && 'errorKind' in call.record ? call.record.errorKind : null)),
      column((call) => (call.record && 'body' in call.record ? call.record.body : null)),
      column((call) => call.outcome.errorClass),
      column((call) => call.outcome.retryInMs ?? 0),
    ];
  }

  /**
   * One relay transaction: takes up to RELAY_BATCH undispatched events (`FOR UPDATE SKIP LOCKED`,
   * so any number of workers share them), lets `decide` fan them out over their candidate
   * endpoints, pauses the endpoints it names, creates the deliveries (unique per event and
   * endpoint) and marks the events dispatched. Answers the deliveries made, and whether events
   * may be left (`more`, below). Three prepared statements (RELAY_SQL, RELAY_CANDIDATES_SQL) between BEGIN and COMMIT.
   *
   * Companies are served in turn, not oldest event first: the events are taken company by
   * company, each company's oldest first, starting with the first company after `after` (in
   * id order, wrapping around). `took` hears the last company taken from as soon as its events
   * are locked, so that a transaction starting meanwhile begins after it rather than behind it,
   * in the same company's next events. Each company gives a transaction RELAY_COMPANY_SHARE
   * events at most. A company whose burst fills transactions thus holds back another company's
   * events by a transaction of its share, not by the burst. Events may be left when the batch or
   * a company's share was full.
   */
  relay(
    decide: (candidates: RelayCandidate[]) => FanOut,
    after: string | null,
    took: (lastTenantId: string) => void,
  ): Promise<{ more: boolean; deliveries: DeliveryRef[]; paused: FanOut['paused'] }> {
    return this.dataSource.transaction(async (manager) => {
      const events = await hotQueryIn<{ id: string; tenant_id: string; created_at: string; type: string }>(manager, RELAY_STATEMENTS.undispatched, RELAY_SQL.undispatched, [
        after ?? NO_COMPANY,
        RELAY_BATCH,
        RELAY_COMPANY_SHARE,
      ]);
      if (events.length === 0) return { more: false, deliveries: [], paused: new Map() };
      const shares = new Map<string, number>();
      for (const event of events) shares.set(event.tenant_id, (shares.get(event.tenant_id) ?? 0) + 1);
      const more = events.length === RELAY_BATCH || [...shares.values()].some((share) => share === RELAY_COMPANY_SHARE);
      took(events.at(-1)!.tenant_id);
      const ids = events.map((event) => event.id);
      const candidates = await hotQueryIn<RelayCandidate>(manager, RELAY_STATEMENTS.candidates, RELAY_CANDIDATES_SQL, [
        ids,
        events.map((event) => event.tenant_id),
        events.map((event) => event.created_at),
        events.map((event) => event.type),
      ]);
      const { deliveries: rows, paused } = decide(candidates);
      for (const [endpointId, reason] of paused) await manager.query(PAUSE_FOR_KEY_SQL, [endpointId, reason]);
      const deliveries = await hotQueryIn<DeliveryRef>(manager, RELAY_STATEMENTS.dispatch, RELAY_SQL.dispatch, [
        rows.map((row) => row.tenantId),
        rows.map((row) => row.endpointId),
        rows.map((row) => row.eventId),
        rows.map((row) => row.eventType),
        rows.map((row) => row.apiVersion),
        rows.map((row) => row.personal),
        ids,
      ]);
      return { more, deliveries, paused };
    });
  }

  /**
   * Pending deliveries overdue by `overdueByMs` and not leased by an attempt in progress, in due
   * order after `after` (a keyset cursor), at most SWEEP_BATCH.
   */
  overdue(overdueByMs: number, after: { at: Date; id: string } | null): Promise<(DeliveryRef & { next_attempt_at: Date })[]> {
    return this.dataSource.query(
      `SELECT id, endpoint_id, next_attempt_at FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= clock_timestamp() - $1 * interval '1 millisecond'
          AND (leased_until IS NULL OR leased_until < clock_timestamp())
          AND ($2::timestamptz IS NULL OR (next_attempt_at, id) > ($2::timestamptz, $3::uuid))
        ORDER BY next_attempt_at, id LIMIT ${SWEEP_BATCH}`,
      [overdueByMs, after?.at ?? null, after?.id ?? null],
    );
  }

  /**
   * Deletes up to `batch` events created before `before`, oldest first, with their deliveries
   * (replays included) and those deliveries' attempts (by cascade), in one short statement.
   * Kept: an event not yet relayed, one with a delivery still pending, and one another
   * transaction holds (a replay being written: SKIP LOCKED, never waited for). Answers how many
   * events went.
   */
  async expireEvents(before: Date, batch: number): Promise<number> {
    const [{ deleted }]: { deleted: number }[] = await this.dataSource.query(
      `WITH doomed AS (
         SELECT e.id FROM events e
          WHERE e.created_at < $1 AND e.dispatched_at IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.tenant_id = e.tenant_id AND d.event_id = e.id AND d.status = 'pending')
          ORDER BY e.created_at LIMIT $2
            FOR UPDATE SKIP LOCKED
       ), originals AS (
         SELECT d.id FROM webhook_deliveries d WHERE d.event_id IN (SELECT id FROM doomed) AND d.replayed_from IS NULL
       ), replays AS (
         DELETE FROM webhook_deliveries r WHERE r.replayed_from IN (SELECT id FROM originals)
       ), deliveries AS (
         DELETE FROM webhook_deliveries d WHERE d.id IN (SELECT id FROM originals)
       ), gone AS (
         DELETE FROM events WHERE id IN (SELECT id FROM doomed) RETURNING id
       )
       SELECT count(*)::int AS deleted FROM gone`,
      [before, batch],
    );
    return deleted;
  }

  /**
   * Deletes a batch of endpoint status history the relay can no longer need: rows older than
   * the cutoff (expireHistory), that a later row, also older, supersedes; so each endpoint keeps
   * its status at that time and every change since. Answers how many were deleted.
   */
  expireStatusChanges(before: Date, batch: number): Promise<number> {
    return this.expireHistory(
      'webhook_endpoint_status_changes',
      `AND EXISTS (SELECT 1 FROM webhook_endpoint_status_changes n
                    WHERE n.endpoint_id = h.endpoint_id AND n.changed_at > h.changed_at AND n.changed_at < (SELECT at FROM cutoff))`,
      before,
      batch,
    );
  }

  /**
   * Deletes a batch of endpoint subscription history the relay can no longer need: a row says
   * what the types were until it, so one older than the cutoff is never read again. Answers how
   * many were deleted.
   */
  expireSubscriptionChanges(before: Date, batch: number): Promise<number> {
    return this.expireHistory('webhook_endpoint_subscription_changes', '', before, batch);
  }

  /**
   * A batch of an endpoint history's rows from before the cutoff, `before` (the events'
   * retention) or the oldest event still to relay if older, deleted where `also` holds.
   */
  private async expireHistory(table: 'webhook_endpoint_status_changes' | 'webhook_endpoint_subscription_changes', also: string, before: Date, batch: number): Promise<number> {
    const [{ deleted }]: { deleted: number }[] = await this.dataSource.query(
      `WITH cutoff AS (
         SELECT least($1::timestamptz, coalesce((SELECT min(created_at) FROM events WHERE dispatched_at IS NULL), $1::timestamptz)) AS at
       ), doomed AS (
         SELECT h.endpoint_id, h.changed_at FROM ${table} h
          WHERE h.changed_at < (SELECT at FROM cutoff) ${also}
          LIMIT $2
            FOR UPDATE SKIP LOCKED
       ), gone AS (
         DELETE FROM ${table} h USING doomed d WHERE h.endpoint_id = d.endpoint_id AND h.changed_at = d.changed_at RETURNING 1
       )
       SELECT count(*)::int AS deleted FROM gone`,
      [before, batch],
    );
    return deleted;
  }

  /** Age in seconds of the oldest pending delivery of any company (0 when none): one number, no company's data. */
  async oldestPendingAgeSeconds(): Promise<number> {
    const [row] = await this.dataSource.query(
      `SELECT coalesce(extract(epoch FROM clock_timestamp() - min(created_at)), 0)::float8 AS age FROM webhook_deliveries WHERE status = 'pending'`,
    );
    return Number(row.age);
  }
}
