import { READ_RESOURCES } from '../src/app/features.js';
import type { OpenAPIObject } from '@nestjs/swagger';
import { createHash } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { FEATURE_TAGS } from '../src/app/features.js';
import { buildOpenApiDocument } from '../src/platform/openapi/openapi-document.js';
import { startApi, type TestApi } from './support/api.js';
import { type CliRun, runCli } from './support/cli.js';

const READ_SCOPES = [
  'int:files.documents:read',
  'int:fin.bills:read',
  'int:fin.invoices:read',
  'int:fin.payments:read',
  'int:fin.purchase_orders:read',
  'int:fm.fuel_logs:read',
  'int:fm.vehicles:read',
  'int:fm.work_orders:read',
  'int:hr.employees:read',
  'int:hr.leave_requests:read',
  'int:hr.timesheets:read',
  'int:support.tickets:read',
];
const FINANCE_READS = READ_SCOPES.filter((scope) => scope.startsWith('int:fin.'));
const API_KEY = /^oh_live_[a-z0-9]{12}_[A-Za-z0-9]{43}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface DemoOutput {
  tenant: { id: string; slug: string };
  keys: { all: string; read: string; finance_write: string; webhooks: string };
  user: { id: string };
  mcp_token: string;
  customer_ids: string[];
}

/** `seed:demo` (operations.md) run through the CLI entry, then used against the running API. */
describe('seed:demo (e2e)', () => {
  let api: TestApi;
  let db: DataSource;
  let run: CliRun;
  let demo: DemoOutput;
  let elapsed: number;
  let openapi: OpenAPIObject;

  beforeAll(async () => {
    const started = performance.now();
    run = await runCli('seed:demo', '--records', '120', '--progress');
    elapsed = performance.now() - started;
    demo = run.json as unknown as DemoOutput;
    api = await startApi();
    db = api.app.get(DataSource);
    openapi = buildOpenApiDocument(api.app, api.config, FEATURE_TAGS);
  }, 60_000);
  afterAll(() => api?.close());

  /** Every read list of the running API with its scope, from the OpenAPI document. */
  const readLists = () =>
    Object.entries(openapi.paths)
      .filter(([path, item]) => /^\/v1\/[a-z_]+$/.test(path) && item.get)
      .map(([path, item]) => ({ path, scope: ((item.get as unknown as Record<string, string[]>)['x-required-scopes'] ?? [])[0] }))
      .filter(({ scope }) => READ_SCOPES.includes(scope));

  it('reports its progress on stderr when asked (--progress) or on a terminal: each seeder, then the records per resource and the time in all', () => {
    const lines = run.stderr.trim().split('\n');
    expect(lines.slice(0, -1).every((line) => /^seed:demo: \w+DemoSeeder done in \d+\.\d s$/.test(line))).toBe(true);
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.at(-1)).toMatch(/^seed:demo: invoices 120, .*documents \d+; \d+\.\d s in all$/);
    for (const resource of READ_RESOURCES) expect(lines.at(-1)).toMatch(new RegExp(`\\b${resource.name} \\d+`));
  });

  it('creates a 120-record company in under 20 seconds and prints exactly the contract', () => {
    expect(run.code).toBe(0);
    expect(elapsed).toBeLessThan(20_000);
    expect(Object.keys(demo).sort()).toEqual(['customer_ids', 'keys', 'mcp_token', 'tenant', 'user']);
    expect(Object.keys(demo.tenant).sort()).toEqual(['id', 'slug']);
    expect(demo.tenant.id).toMatch(UUID);
    expect(Object.keys(demo.keys).sort()).toEqual(['all', 'finance_write', 'read', 'webhooks']);
    for (const key of Object.values(demo.keys)) expect(key).toMatch(API_KEY);
    expect(new Set(Object.values(demo.keys)).size).toBe(4);
    expect(Object.keys(demo.user)).toEqual(['id']);
    expect(demo.mcp_token).toMatch(/^oht_[a-z0-9]{12}_[A-Za-z0-9]{43}$/);
    expect(demo.customer_ids.length).toBeGreaterThan(0);
    for (const id of demo.customer_ids) expect(id).toMatch(UUID);
  });

  it('gives the keys the documented scopes and the user every read permission', async () => {
    const keys: { scopes: string[]; created_by_user_id: string; prefix: string }[] = await db.query(
      'SELECT scopes, created_by_user_id, prefix FROM api_keys WHERE tenant_id = $1',
      [demo.tenant.id],
    );
    const scopesOf = (key: string) => keys.find((row) => key.startsWith(`oh_live_${row.prefix}_`))!.scopes.sort();
    expect(keys).toHaveLength(4);
    expect(scopesOf(demo.keys.all)).toEqual(['int:*']);
    expect(scopesOf(demo.keys.read)).toEqual([...READ_SCOPES].sort());
    expect(scopesOf(demo.keys.finance_write)).toEqual(['int:fin.invoices:write', ...FINANCE_READS].sort());
    expect(scopesOf(demo.keys.webhooks)).toEqual(['int:webhooks:manage', ...READ_SCOPES].sort());
    for (const key of keys) expect(key.created_by_user_id).toBe(demo.user.id);

    const [user] = await db.query('SELECT tenant_id, permissions FROM users WHERE id = $1', [demo.user.id]);
    expect(user.tenant_id).toBe(demo.tenant.id);
    expect([...user.permissions].sort()).toEqual(READ_SCOPES.map((scope) => scope.slice('int:'.length)).sort());
  });

  it('stores the agent-tool token for the demo user with every tool, hashed', async () => {
    const [, prefix, secret] = /^oht_([a-z0-9]{12})_(.+)$/.exec(demo.mcp_token)!;
    const rows = await db.query('SELECT user_id, tools, secret_hash FROM mcp_tokens WHERE tenant_id = $1 AND prefix = $2', [demo.tenant.id, prefix]);
    expect(rows).toHaveLength(1);
    expect(rows[0].user_id).toBe(demo.user.id);
    expect(rows[0].tools).toEqual(['*']);
    expect(rows[0].secret_hash).toEqual(createHash('sha256').update(secret).digest());

    const res = await api.http.get('/v1/vehicles').set('Authorization', `Bearer ${demo.mcp_token}`);
    expect(res.status).toBe(401);
  });

  it('answers every read list with the 120 records through the read key, and each item by id', async () => {
    const lists = readLists();
    expect(lists.map(({ path }) => path)).toEqual(
      expect.arrayContaining(['/v1/invoices', '/v1/payments', '/v1/bills', '/v1/purchase_orders', '/v1/vehicles', '/v1/work_orders', '/v1/fuel_logs', '/v1/employees', '/v1/leave_requests', '/v1/timesheets', '/v1/tickets', '/v1/documents']),
    );
    for (const { path } of lists) {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const res: Response = await api.http.get(`${path}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`).set('Authorization', `Bearer ${demo.keys.read}`);
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
        ids.push(...res.body.data.map((item: { id: string }) => item.id));
        cursor = res.body.next_cursor;
      } while (cursor);
      expect({ path, count: new Set(ids).size }).toEqual({ path, count: 120 });
      const one = await api.http.get(`${path}/${ids[0]}`).set('Authorization', `Bearer ${demo.keys.read}`);
      expect({ path, status: one.status, id: one.body.id }).toEqual({ path, status: 200, id: ids[0] });
    }
  });

  it('lets all and webhooks read everything, and finance_write only finance', async () => {
    for (const { path, scope } of readLists()) {
      for (const [name, key, allowed] of [
        ['all', demo.keys.all, true],
        ['webhooks', demo.keys.webhooks, true],
        ['finance_write', demo.keys.finance_write, scope.startsWith('int:fin.')],
      ] as const) {
        const res = await api.http.get(`${path}?limit=1`).set('Authorization', `Bearer ${key}`);
        expect({ path, name, status: res.status }).toEqual({ path, name, status: allowed ? 200 : 403 });
        if (!allowed) expect(res.body.missing_scope).toBe(scope);
      }
    }
  });

  it('links records across modules: drivers, assignees and document owners exist in the company', async () => {
    const [links] = await db.query(
      `SELECT
         (SELECT count(*) FROM vehicles v WHERE v.tenant_id = $1 AND v.assigned_driver_id IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM employees e WHERE e.tenant_id = $1 AND e.id = v.assigned_driver_id))::int AS orphan_drivers,
         (SELECT count(*) FROM vehicles WHERE tenant_id = $1 AND assigned_driver_id IS NOT NULL)::int AS drivers,
         (SELECT count(*) FROM tickets t WHERE t.tenant_id = $1 AND t.assignee_id IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM employees e WHERE e.tenant_id = $1 AND e.id = t.assignee_id))::int AS orphan_assignees,
         (SELECT count(*) FROM documents d WHERE d.tenant_id = $1 AND d.owner_type IN ('vehicle', 'employee', 'ticket') AND NOT EXISTS (
            SELECT 1 FROM vehicles v WHERE v.id = d.owner_id AND v.tenant_id = $1 UNION ALL
            SELECT 1 FROM employees e WHERE e.id = d.owner_id AND e.tenant_id = $1 UNION ALL
            SELECT 1 FROM tickets t WHERE t.id = d.owner_id AND t.tenant_id = $1))::int AS orphan_documents`,
      [demo.tenant.id],
    );
    expect(links).toEqual({ orphan_drivers: 0, drivers: expect.any(Number), orphan_assignees: 0, orphan_documents: 0 });
    expect(links.drivers).toBeGreaterThan(0);
  });

  it("gives every work order and fuel log a vehicle already in the fleet at the record's time, when one was", async () => {
    // A record that predates its vehicle although an eligible vehicle was already there.
    const early = (table: string, eligible: string) =>
      `(SELECT count(*) FROM ${table} r JOIN vehicles v ON v.tenant_id = r.tenant_id AND v.id = r.vehicle_id
         WHERE r.tenant_id = $1 AND v.created_at > r.created_at
           AND EXISTS (SELECT 1 FROM vehicles e WHERE e.tenant_id = $1 AND e.created_at <= r.created_at AND ${eligible}))::int`;
    const [found] = await db.query(
      `SELECT ${early('work_orders', 'true')} AS work_orders, ${early('fuel_logs', "e.fuel_type <> 'electric'")} AS fuel_logs,
              (SELECT count(*) FROM fuel_logs f JOIN vehicles v ON v.tenant_id = f.tenant_id AND v.id = f.vehicle_id
                WHERE f.tenant_id = $1 AND v.fuel_type = 'electric')::int AS electric_fuelled`,
      [demo.tenant.id],
    );
    expect(found).toEqual({ work_orders: 0, fuel_logs: 0, electric_fuelled: 0 });
  });

  // Last of the API checks: it adds an invoice to the company.
  it('prints customer ids of the demo company that new invoices can use', async () => {
    const [{ count }] = await db.query('SELECT count(*)::int AS count FROM customers WHERE tenant_id = $1 AND id = ANY($2::uuid[])', [demo.tenant.id, demo.customer_ids]);
    expect(count).toBe(demo.customer_ids.length);
    const res = await api.http
      .post('/v1/invoices')
      .set('Authorization', `Bearer ${demo.keys.finance_write}`)
      .send({ customer_id: demo.customer_ids[0], currency: 'EUR', lines: [{ description: 'Demo', qty: 1, unit_price_minor: 1000, tax_rate: 19 }] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ customer_id: demo.customer_ids[0], status: 'draft' });
  });

  it('makes the same company each time (seeded faker), under a new id and slug', async () => {
    // Without --progress, and with stderr no terminal (a script, a test), success writes nothing there.
    const quiet = await runCli('seed:demo', '--records', '3');
    expect({ code: quiet.code, stderr: quiet.stderr }).toEqual({ code: 0, stderr: '' });
    const again = quiet.json as unknown as DemoOutput;
    const third = (await runCli('seed:demo', '--records', '3')).json as unknown as DemoOutput;
    expect(again.tenant.id).not.toBe(third.tenant.id);
    expect(again.tenant.slug).not.toBe(third.tenant.slug);
    const profile = async (tenantId: string) => ({
      name: (await db.query('SELECT name FROM tenants WHERE id = $1', [tenantId]))[0].name,
      employees: await db.query('SELECT employee_number, first_name, last_name, department FROM employees WHERE tenant_id = $1 ORDER BY employee_number', [tenantId]),
      vehicles: await db.query('SELECT vin, make, model FROM vehicles WHERE tenant_id = $1 ORDER BY vin', [tenantId]),
    });
    expect(await profile(again.tenant.id)).toEqual(await profile(third.tenant.id));
  });

  it('creates the documented maximum, 10,000 records of every resource, numbered without gaps', async () => {
    const largest = await runCli('seed:demo', '--records', '10000', '--progress');
    expect(largest.code).toBe(0);
    const summary = largest.stderr.trim().split('\n').at(-1)!;
    for (const resource of READ_RESOURCES) expect(summary).toContain(`${resource.name} 10000`);
    const tenantId = (largest.json as unknown as DemoOutput).tenant.id;
    const [numbers] = await db.query(
      `SELECT count(number)::int AS numbered, count(DISTINCT number)::int AS distinct_numbers,
              (SELECT sum(last_value)::int FROM finance_number_sequences WHERE tenant_id = $1 AND kind = 'invoice') AS counted
         FROM invoices WHERE tenant_id = $1`,
      [tenantId],
    );
    expect(numbers.numbered).toBeGreaterThan(8000);
    expect(numbers).toEqual({ numbered: numbers.numbered, distinct_numbers: numbers.numbered, counted: numbers.numbered });
  }, 180_000);

  it.each([['0'], ['-1'], ['many'], ['10001']])('refuses --records %s with a message and exit 1', async (records) => {
    const failed = await runCli('seed:demo', '--records', records);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toMatch(/records|integer/);
  });
});
