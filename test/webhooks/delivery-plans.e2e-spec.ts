import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { CURRENT_API_VERSION } from '../../src/platform/versioning/api-version.js';
import { STREAK_SQL } from '../../src/webhooks/delivery/auto-disable.service.js';
import { DELIVERY_SQL, RELAY_CANDIDATES_SQL, RELAY_SQL } from '../../src/webhooks/delivery/delivery-store.js';
import { deliveryEnv, isolatedDatabase } from '../support/deliveries.js';
import { startWorker } from '../support/worker.js';

const SETTLED = 5000;

type PlanNode = {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
};

/** The worker's prepared statements, by the names this test prepares them under, with parameters that match nothing. */
const STATEMENTS: Record<string, { sql: string; empty: unknown[] }> = {
  lease: { sql: DELIVERY_SQL.lease, empty: [[], [], 20_000, 50] },
  finish: { sql: DELIVERY_SQL.finish, empty: Array.from({ length: 11 }, () => []) },
  undispatched: { sql: RELAY_SQL.undispatched, empty: ['00000000-0000-0000-0000-000000000000', 0, 0] },
  candidates: { sql: RELAY_CANDIDATES_SQL, empty: [[], [], [], []] },
  dispatch: { sql: RELAY_SQL.dispatch, empty: Array.from({ length: 7 }, () => []) },
  streak: { sql: STREAK_SQL, empty: ['00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000000', 0, 0] },
};

/** A value written as a literal: EXECUTE takes no bind parameters. */
function literal(session: PoolClient, value: unknown): string {
  const element = (item: unknown) => (item === null ? 'NULL' : JSON.stringify(item instanceof Date ? item.toISOString() : String(item)));
  if (value === null) return 'NULL';
  return session.escapeLiteral(Array.isArray(value) ? `{${value.map(element).join(',')}}` : String(value));
}

/** Runs the statement prepared as `name` on `session`, and answers its rows. */
async function execute(session: PoolClient, name: string, values: unknown[]): Promise<Record<string, unknown>[]> {
  return (await session.query(`EXECUTE ${name} (${values.map((value) => literal(session, value)).join(', ')})`)).rows;
}

/** The plan the statement prepared as `name` runs with on `session`; with `analyze`, as it ran. */
async function explain(session: PoolClient, name: string, values: unknown[], { analyze = false } = {}): Promise<PlanNode> {
  const { rows } = await session.query(`EXPLAIN (${analyze ? 'ANALYZE, ' : ''}FORMAT JSON) EXECUTE ${name} (${values.map((value) => literal(session, value)).join(', ')})`);
  return rows[0]['QUERY PLAN'][0].Plan;
}

/** The plan's nodes that read `table`. */
const scansOf = (node: PlanNode, table: string): PlanNode[] => [...(node['Relation Name'] === table ? [node] : []), ...(node.Plans ?? []).flatMap((child) => scansOf(child, table))];

/** Rows a plan read from `table`: those it returned and those its filters removed, over all loops. */
const rowsRead = (node: PlanNode, table: string): number =>
  scansOf(node, table).reduce((sum, scan) => sum + ((scan['Actual Rows'] ?? 0) + (scan['Rows Removed by Filter'] ?? 0)) * (scan['Actual Loops'] ?? 1), 0);

/**
 * The plans of the worker's prepared statements (an attempt's two, a relay's three, the failure
 * streak auto-disable reads) as its own sessions run them: generic, made once per connection,
 * when the pool opens. On a new deployment that is while the tables are empty, and the plan
 * stays for the connection's life (autovacuum off here, as in the minutes before its first
 * look). So the statements are prepared and run once on a worker session before any row exists,
 * as the worker does at start, and explained once the tables hold thousands of rows: index
 * lookups, never a scan of a table or of another company's rows. Plans made on such tables
 * scanned every delivery per lease and outcome, read every event of the company per relay (see
 * DeliveryStore), and walked the company's endpoints per failure streak.
 */
describe('delivery statements: plans on the worker sessions', () => {
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let worker: INestApplicationContext;
  /** A worker session holding the statements prepared while the tables were empty. */
  let young: PoolClient;

  beforeAll(async () => {
    database = await isolatedDatabase('plans');
    worker = await startWorker({ env: deliveryEnv('plans', database.url) });
    const db = worker.get(DataSource);
    for (const table of ['events', 'webhook_deliveries', 'webhook_delivery_attempts', 'webhook_endpoints', 'tenants', 'api_keys']) {
      await db.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    }
    young = await (db.driver as unknown as { master: Pool }).master.connect();
    for (const [name, { sql, empty }] of Object.entries(STATEMENTS)) {
      await young.query(`PREPARE ${name} AS ${sql}`);
      await execute(young, name, empty);
    }
    // Pages of settled deliveries and dispatched events, as after a first burst.
    await db.query(
      `WITH tenant AS (INSERT INTO tenants (slug, name) VALUES ('plans', 'Plans') RETURNING id),
            key AS (INSERT INTO api_keys (tenant_id, prefix, secret_hash, scopes) SELECT id, 'plans0000000', sha256(''), '{int:*}' FROM tenant RETURNING id, tenant_id),
            endpoint AS (INSERT INTO webhook_endpoints (tenant_id, api_key_id, name, url, event_types, secret_ciphertext, created_at)
                         SELECT tenant_id, id, 'plans', 'https://receiver.example/hook', '{fin.invoice.created}', '\\x00', now() - interval '1 hour' FROM key RETURNING id, tenant_id),
            event AS (INSERT INTO events (id, tenant_id, type, envelope, dispatched_at)
                      SELECT gen_random_uuid(), tenant_id, 'fin.invoice.created', '{}', clock_timestamp() FROM endpoint, generate_series(1, ${SETTLED}) RETURNING id, tenant_id)
       INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, api_version, personal_data, status, attempt)
       SELECT event.tenant_id, endpoint.id, event.id, 'fin.invoice.created', $1, false, 'delivered', 1 FROM event, endpoint`,
      [CURRENT_API_VERSION],
    );
  });
  afterAll(async () => {
    young.release(true);
    await worker.close();
    await database.drop();
  });

  it("opens its whole pool at start, every session set up after the options DATABASE_URL gives and the attempt's, the relay's and auto-disable's statements prepared", async () => {
    const url = new URL(database.url);
    url.searchParams.set('options', '-c lock_timeout=12345');
    const other = await startWorker({ env: deliveryEnv('plans-options', url.toString()) });
    try {
      const pool = (other.get(DataSource).driver as unknown as { master: Pool }).master;
      expect(pool.totalCount).toBe(10);
      const sessions = await Promise.all(Array.from({ length: 10 }, () => pool.connect()));
      try {
        expect(pool.totalCount).toBe(10);
        for (const session of sessions) {
          const { rows } = await session.query(
            `SELECT current_setting('enable_seqscan') AS seqscan, current_setting('plan_cache_mode') AS plans, current_setting('synchronous_commit') AS sync, current_setting('lock_timeout') AS timeout,
                    (SELECT array_agg(name ORDER BY name) FROM pg_prepared_statements) AS prepared`,
          );
          expect(rows).toEqual([
            {
              seqscan: 'off',
              plans: 'force_generic_plan',
              sync: 'off',
              timeout: '12345ms',
              prepared: ['webhook-delivery-claim', 'webhook-delivery-finish', 'webhook-endpoint-streak', 'webhook-relay-candidates', 'webhook-relay-dispatch', 'webhook-relay-undispatched'],
            },
          ]);
        }
        // Opened later, a session still starts with the settings.
        sessions.shift()!.release(true);
        const later = await pool.connect();
        try {
          const { rows } = await later.query(
            `SELECT current_setting('enable_seqscan') AS seqscan, current_setting('plan_cache_mode') AS plans, current_setting('lock_timeout') AS timeout, current_setting('statement_timeout') AS statements`,
          );
          // DATABASE_STATEMENT_TIMEOUT_MS (10 s by default) besides.
          expect(rows).toEqual([{ seqscan: 'off', plans: 'force_generic_plan', timeout: '12345ms', statements: '10s' }]);
        } finally {
          later.release();
        }
      } finally {
        // All of them, also after a failed expectation: the worker's close waits for every one.
        for (const session of sessions) session.release();
      }
    } finally {
      await other.close();
    }
  });

  it('finds the candidate endpoints of a relay without reading an event again or walking a company’s deleted endpoints', async () => {
    const db = worker.get(DataSource);
    // A company that created and deleted 3,000 endpoints over time, and has one active one.
    await db.query(
      `INSERT INTO webhook_endpoints (tenant_id, api_key_id, name, url, event_types, secret_ciphertext, status, disabled_reason, created_at, status_changed_at)
       SELECT tenant_id, id, 'old', 'https://receiver.example/old', '{fin.invoice.created}', '\\x00', 'disabled', 'user_deleted', now() - interval '2 days', now() - interval '1 day'
         FROM api_keys, generate_series(1, 3000) WHERE prefix = 'plans0000000'`,
    );
    const events: { id: string; tenant_id: string; created_at: string; type: string }[] = await db.query(
      `INSERT INTO events (id, tenant_id, type, envelope) SELECT gen_random_uuid(), tenant_id, 'fin.invoice.created', '{}' FROM api_keys, generate_series(1, 20) WHERE prefix = 'plans0000000'
       RETURNING id, tenant_id, created_at::text AS created_at, type`,
    );
    const batch = (['id', 'tenant_id', 'created_at', 'type'] as const).map((column) => events.map((event) => event[column]));
    expect(await execute(young, 'candidates', batch)).toHaveLength(20);
    const plan = await explain(young, 'candidates', batch, { analyze: true });
    expect(rowsRead(plan, 'events')).toBe(0);
    expect(rowsRead(plan, 'webhook_endpoints')).toBeGreaterThan(0);
    expect(rowsRead(plan, 'webhook_endpoints')).toBeLessThan(100);
  });

  it("takes a relay's events from the companies after its cursor by a range of the index: another company's backlog is not walked", async () => {
    // Uncommitted, so the running worker's relay never sees them.
    await young.query('BEGIN');
    try {
      const tenants: { id: string }[] = (
        await young.query(`INSERT INTO tenants (slug, name) SELECT 'plans-relay-' || n, 'Plans' FROM generate_series(1, 2) AS n RETURNING id`)
      ).rows.sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id));
      const [relayedLast, next] = tenants.map((tenant) => tenant.id);
      // The company relayed last has a backlog; the next one in id order has one event.
      await young.query(
        `INSERT INTO events (id, tenant_id, type, envelope) SELECT gen_random_uuid(), $1, 'fin.invoice.created', '{}' FROM generate_series(1, 3000)`,
        [relayedLast],
      );
      const [{ id: nextEvent }] = (await young.query(`INSERT INTO events (id, tenant_id, type, envelope) VALUES (gen_random_uuid(), $1, 'fin.invoice.created', '{}') RETURNING id`, [next])).rows;
      expect(await execute(young, 'undispatched', [relayedLast, 1, 1])).toEqual([{ id: nextEvent, tenant_id: next, created_at: expect.any(String), type: 'fin.invoice.created' }]);
      const read = rowsRead(await explain(young, 'undispatched', [relayedLast, 1, 1], { analyze: true }), 'events');
      expect(read).toBeGreaterThan(0);
      expect(read).toBeLessThan(10);
    } finally {
      await young.query('ROLLBACK');
    }
  });

  it("creates a relay's deliveries and marks its events dispatched by primary key", async () => {
    await young.query('BEGIN');
    try {
      const [{ id: eventId, tenant_id: tenantId }] = (
        await young.query(`INSERT INTO events (id, tenant_id, type, envelope) SELECT gen_random_uuid(), tenant_id, 'fin.invoice.created', '{}' FROM api_keys WHERE prefix = 'plans0000000' RETURNING id, tenant_id`)
      ).rows;
      const [{ id: endpointId }] = (await young.query(`SELECT id FROM webhook_endpoints WHERE tenant_id = $1 AND status = 'active' LIMIT 1`, [tenantId])).rows;
      const plan = await explain(young, 'dispatch', [[tenantId], [endpointId], [eventId], ['fin.invoice.created'], [CURRENT_API_VERSION], [false], [eventId]], { analyze: true });
      expect(rowsRead(plan, 'events')).toBe(1);
      expect((await young.query('SELECT dispatched_at IS NOT NULL AS dispatched FROM events WHERE id = $1', [eventId])).rows).toEqual([{ dispatched: true }]);
    } finally {
      await young.query('ROLLBACK');
    }
  });

  it("judges an endpoint's failures from its own attempts, however many its company's other endpoints made", async () => {
    await young.query('BEGIN');
    try {
      // The first endpoint answered 3,000 attempts; a second one of the same company failed 3.
      await young.query(
        `INSERT INTO webhook_delivery_attempts (tenant_id, delivery_id, endpoint_id, attempt, started_at, duration_ms, response_status)
         SELECT tenant_id, id, endpoint_id, 1, now() - interval '1 minute', 5, 204 FROM webhook_deliveries LIMIT 3000`,
      );
      const [{ id: endpointId, tenant_id: tenantId }] = (
        await young.query(
          `INSERT INTO webhook_endpoints (tenant_id, api_key_id, name, url, event_types, secret_ciphertext, created_at)
           SELECT tenant_id, id, 'failing', 'https://receiver.example/failing', '{fin.invoice.created}', '\\x00', now() - interval '1 hour' FROM api_keys WHERE prefix = 'plans0000000'
           RETURNING id, tenant_id`,
        )
      ).rows;
      await young.query(
        `WITH failed AS (
           INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, api_version, personal_data, status, attempt)
           SELECT tenant_id, $1, event_id, event_type, api_version, false, 'dead', 1 FROM webhook_deliveries LIMIT 3 RETURNING id, tenant_id, endpoint_id)
         INSERT INTO webhook_delivery_attempts (tenant_id, delivery_id, endpoint_id, attempt, started_at, duration_ms, error_kind)
         SELECT tenant_id, id, endpoint_id, 1, clock_timestamp(), 5, 'timeout' FROM failed`,
        [endpointId],
      );
      const values = [tenantId, endpointId, 3, 100];
      expect(await execute(young, 'streak', values)).toEqual([expect.objectContaining({ recent: 3, n: 3, recent_all_gone: false, last_success_at: null })]);
      const plan = await explain(young, 'streak', values, { analyze: true });
      const read = rowsRead(plan, 'webhook_delivery_attempts');
      expect(read).toBeGreaterThan(0);
      expect(read).toBeLessThan(50);
      // The endpoint itself by primary key, not by a walk of its company's 3,000 others in another index.
      expect(scansOf(plan, 'webhook_endpoints').map((scan) => scan['Index Name'])).toEqual(['webhook_endpoints_pkey']);
    } finally {
      await young.query('ROLLBACK');
    }
  });

  it('leases and records by primary key', async () => {
    expect((await young.query('SHOW enable_seqscan')).rows).toEqual([{ enable_seqscan: 'off' }]);
    const ids = [randomUUID(), randomUUID()];
    const tokens = [randomUUID(), randomUUID()];
    const none = ids.map(() => null);
    const lease = scansOf(await explain(young, 'lease', [ids, tokens, 20_000, 50]), 'webhook_deliveries');
    const finish = scansOf(await explain(young, 'finish', [ids, tokens, ['delivered', 'delivered'], [1, 1], [new Date(), new Date()], [5, 5], [204, 204], none, ['', ''], none, [0, 0]]), 'webhook_deliveries');
    for (const scans of [lease, finish]) {
      expect(scans.length).toBeGreaterThan(0);
      for (const scan of scans) expect(scan).toMatchObject({ 'Node Type': expect.stringMatching(/^(Index Scan|Bitmap Heap Scan|ModifyTable)$/) });
    }
    expect(lease.map((scan) => scan['Index Name'] ?? scan.Plans?.[0]?.['Index Name']).filter(Boolean)).toContain('webhook_deliveries_pkey');
  });
});
