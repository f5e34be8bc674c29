import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { CURRENT_API_VERSION } from '../../src/platform/versioning/api-version.js';
import { DELIVERY_SQL, RELAY_CANDIDATES_SQL, RELAY_SQL } from '../../src/webhooks/delivery/delivery-store.js';
import { deliveryEnv, isolatedDatabase } from '../support/deliveries.js';
import { startWorker } from '../support/worker.js';

const SETTLED = 300;

type PlanNode = {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
};

let prepared = 0;

/**
 * The plan a worker session runs `sql` with as a prepared statement: its generic plan, since the
 * session forces it. Explained through EXECUTE, which takes no bind parameters, so the values are
 * written as literals.
 */
async function explainPrepared(session: PoolClient, sql: string, values: unknown[], { analyze = false } = {}): Promise<PlanNode> {
  const element = (value: unknown) => (value === null ? 'NULL' : JSON.stringify(value instanceof Date ? value.toISOString() : String(value)));
  const literal = (value: unknown) => (value === null ? 'NULL' : session.escapeLiteral(Array.isArray(value) ? `{${value.map(element).join(',')}}` : String(value)));
  const name = `plan_probe_${++prepared}`;
  await session.query(`PREPARE ${name} AS ${sql}`);
  try {
    const { rows } = await session.query(`EXPLAIN (${analyze ? 'ANALYZE, ' : ''}FORMAT JSON) EXECUTE ${name} (${values.map(literal).join(', ')})`);
    return rows[0]['QUERY PLAN'][0].Plan;
  } finally {
    await session.query(`DEALLOCATE ${name}`).catch(() => undefined);
  }
}

/** Rows a plan read from `table`: those it returned and those its filters removed, over all loops. */
const rowsRead = (node: PlanNode, table: string): number =>
  (node['Relation Name'] === table ? ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * (node['Actual Loops'] ?? 1) : 0) +
  (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, table), 0);

/**
 * The plans of the worker's prepared statements (an attempt's two, a relay's three) as its own
 * sessions run them, generic, on a young deliveries table (a database of its own, as on a new
 * deployment): index lookups, never a scan of a table or of another company's rows. A generic
 * plan made on such a table scanned every delivery per lease and outcome for the connection's
 * life (see DeliveryStore).
 */
describe('delivery statements: plans on the worker sessions', () => {
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let worker: INestApplicationContext;

  beforeAll(async () => {
    database = await isolatedDatabase('plans');
    worker = await startWorker({ env: deliveryEnv('plans', database.url) });
    // A few pages of settled deliveries, as after a first burst: on a table this size a scan is
    // the cheaper plan, and the one a generic plan would keep as the table grows.
    await worker.get(DataSource).query(
      `WITH tenant AS (INSERT INTO tenants (slug, name) VALUES ('plans', 'Plans') RETURNING id),
            key AS (INSERT INTO api_keys (tenant_id, prefix, secret_hash, scopes) SELECT id, 'plans0000000', sha256(''), '{int:*}' FROM tenant RETURNING id, tenant_id),
            endpoint AS (INSERT INTO webhook_endpoints (tenant_id, api_key_id, name, url, event_types, secret_ciphertext)
                         SELECT tenant_id, id, 'plans', 'https://receiver.example/hook', '{fin.invoice.created}', '\\x00' FROM key RETURNING id, tenant_id),
            event AS (INSERT INTO events (id, tenant_id, type, envelope, dispatched_at)
                      SELECT gen_random_uuid(), tenant_id, 'fin.invoice.created', '{}', clock_timestamp() FROM endpoint, generate_series(1, ${SETTLED}) RETURNING id, tenant_id)
       INSERT INTO webhook_deliveries (tenant_id, endpoint_id, event_id, event_type, api_version, personal_data, status, attempt)
       SELECT event.tenant_id, endpoint.id, event.id, 'fin.invoice.created', $1, false, 'delivered', 1 FROM event, endpoint`,
      [CURRENT_API_VERSION],
    );
  });
  afterAll(async () => {
    await worker.close();
    await database.drop();
  });

  const deliveryScans = (node: PlanNode): PlanNode[] => [
    ...(node['Relation Name'] === 'webhook_deliveries' ? [node] : []),
    ...(node.Plans ?? []).flatMap(deliveryScans),
  ];

  it("opens its whole pool at start, every session set up after the options DATABASE_URL gives and the attempt's and the relay's statements prepared", async () => {
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
              prepared: ['webhook-delivery-claim', 'webhook-delivery-finish', 'webhook-relay-candidates', 'webhook-relay-dispatch', 'webhook-relay-undispatched'],
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

  it('finds the candidate endpoints of a relay without walking a company’s deleted endpoints', async () => {
    const db = worker.get(DataSource);
    // A company that created and deleted 3,000 endpoints over time, and has one active one.
    await db.query(
      `INSERT INTO webhook_endpoints (tenant_id, api_key_id, name, url, event_types, secret_ciphertext, status, disabled_reason, created_at, status_changed_at)
       SELECT tenant_id, id, 'old', 'https://receiver.example/old', '{fin.invoice.created}', '\\x00', 'disabled', 'user_deleted', now() - interval '2 days', now() - interval '1 day'
         FROM api_keys, generate_series(1, 3000) WHERE prefix = 'plans0000000'`,
    );
    await db.query('ANALYZE webhook_endpoints');
    const events: { id: string }[] = await db.query(
      `INSERT INTO events (id, tenant_id, type, envelope) SELECT gen_random_uuid(), tenant_id, 'fin.invoice.created', '{}' FROM api_keys, generate_series(1, 20) WHERE prefix = 'plans0000000' RETURNING id`,
    );
    const pool = (db.driver as unknown as { master: Pool }).master;
    const session = await pool.connect();
    try {
      const read = rowsRead(await explainPrepared(session, RELAY_CANDIDATES_SQL, [events.map((event) => event.id)], { analyze: true }), 'webhook_endpoints');
      expect(read).toBeGreaterThan(0);
      expect(read).toBeLessThan(100);
    } finally {
      session.release();
    }
  });

  it("takes a relay's events from the companies after its cursor by a range of the index: another company's backlog is not walked", async () => {
    const db = worker.get(DataSource);
    const pool = (db.driver as unknown as { master: Pool }).master;
    const session = await pool.connect();
    try {
      // Uncommitted, so the running worker's relay never sees them.
      await session.query('BEGIN');
      const tenants: { id: string }[] = (
        await session.query(`INSERT INTO tenants (slug, name) SELECT 'plans-relay-' || n, 'Plans' FROM generate_series(1, 2) AS n RETURNING id`)
      ).rows.sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id));
      const [relayedLast, next] = tenants.map((tenant) => tenant.id);
      // The company relayed last has a backlog; the next one in id order has one event.
      await session.query(
        `INSERT INTO events (id, tenant_id, type, envelope) SELECT gen_random_uuid(), $1, 'fin.invoice.created', '{}' FROM generate_series(1, 3000)`,
        [relayedLast],
      );
      const [{ id: nextEvent }] = (await session.query(`INSERT INTO events (id, tenant_id, type, envelope) VALUES (gen_random_uuid(), $1, 'fin.invoice.created', '{}') RETURNING id`, [next])).rows;
      expect((await session.query(RELAY_SQL.undispatched, [relayedLast, 1])).rows).toEqual([{ id: nextEvent, tenant_id: next }]);
      const read = rowsRead(await explainPrepared(session, RELAY_SQL.undispatched, [relayedLast, 1], { analyze: true }), 'events');
      expect(read).toBeGreaterThan(0);
      expect(read).toBeLessThan(10);
    } finally {
      await session.query('ROLLBACK').catch(() => undefined);
      session.release();
    }
  });

  it('leases and records by primary key', async () => {
    const pool = (worker.get(DataSource).driver as unknown as { master: Pool }).master;
    const session = await pool.connect();
    try {
      expect((await session.query('SHOW enable_seqscan')).rows).toEqual([{ enable_seqscan: 'off' }]);
      const ids = [randomUUID(), randomUUID()];
      const tokens = [randomUUID(), randomUUID()];
      const explain = async (sql: string, values: unknown[]) => deliveryScans(await explainPrepared(session, sql, values));

      const lease = await explain(DELIVERY_SQL.lease, [ids, tokens, 20_000, 50]);
      const none = ids.map(() => null);
      const finish = await explain(DELIVERY_SQL.finish, [ids, tokens, ['delivered', 'delivered'], [1, 1], [new Date(), new Date()], [5, 5], [204, 204], none, ['', ''], none, [0, 0]]);
      for (const scans of [lease, finish]) {
        expect(scans.length).toBeGreaterThan(0);
        for (const scan of scans) expect(scan).toMatchObject({ 'Node Type': expect.stringMatching(/^(Index Scan|Bitmap Heap Scan|ModifyTable)$/) });
      }
      expect(lease.map((scan) => scan['Index Name'] ?? scan.Plans?.[0]?.['Index Name']).filter(Boolean)).toContain('webhook_deliveries_pkey');
    } finally {
      session.release();
    }
  });
});
