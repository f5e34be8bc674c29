import { Faker, en } from '@faker-js/faker';
import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { FinanceDemoSeeder } from '../../src/finance/finance-demo.seeder.js';
import { TenantData } from '../../src/platform/tenancy/tenant-data.js';
import { startApi, type TestApi } from '../support/api.js';
import { countRows } from '../support/finance.js';
import { createTenantSession } from '../support/tenant-session.js';

describe('FinanceDemoSeeder (e2e)', () => {
  let api: TestApi;
  let app: INestApplicationContext;
  let db: DataSource;

  beforeAll(async () => {
    api = await startApi();
    app = api.app;
    db = app.get(DataSource);
  });
  afterAll(() => api.close());

  const seed = async (records: number, seedValue = 1) => {
    const session = await createTenantSession(app, { currencies: ['CHF', 'EUR'] });
    const faker = new Faker({ locale: [en], seed: seedValue });
    const result = await app.get(TenantData).transaction(session.tenant.id, (data) => app.get(FinanceDemoSeeder).seed({ data, records, faker }));
    return { tenantId: session.tenant.id, result };
  };

  it.each([1, 2, 6, 25])('creates exactly %i of each readable resource, plus reference data', async (records) => {
    const { tenantId, result } = await seed(records);
    for (const table of ['invoices', 'payments', 'bills', 'purchase_orders']) expect(await countRows(app, table, tenantId)).toBe(records);
    expect(result.customer_ids.length).toBeGreaterThanOrEqual(3);
    expect(await countRows(app, 'customers', tenantId)).toBe(result.customer_ids.length);
    const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM customers WHERE tenant_id = $1 AND id = ANY($2::uuid[])`, [tenantId, result.customer_ids]);
    expect(n).toBe(result.customer_ids.length);
    expect(await countRows(app, 'products', tenantId)).toBeGreaterThan(0);
    expect(await countRows(app, 'tax_rates', tenantId)).toBeGreaterThan(0);
  });

  it('spreads invoices over every state, consistent with their payments and credit notes', async () => {
    const { tenantId } = await seed(25);
    const statuses: { status: string; n: number }[] = await db.query(`SELECT status, count(*)::int AS n FROM invoices WHERE tenant_id = $1 GROUP BY status`, [tenantId]);
    expect(statuses.map((s) => s.status).sort()).toEqual(['draft', 'issued', 'overdue', 'paid', 'partial', 'void']);

    const mismatched = await db.query(
      `SELECT i.id FROM invoices i
       LEFT JOIN (SELECT invoice_id, sum(amount_minor) AS received FROM payments WHERE status = 'received' GROUP BY invoice_id) p ON p.invoice_id = i.id
       WHERE i.tenant_id = $1 AND i.paid_minor <> coalesce(p.received, 0)`,
      [tenantId],
    );
    expect(mismatched).toEqual([]);
    const voids = statuses.find((s) => s.status === 'void')!.n;
    expect(await countRows(app, 'credit_notes', tenantId)).toBe(voids);
    const [{ currencies }] = await db.query(`SELECT array_agg(DISTINCT currency) AS currencies FROM invoices WHERE tenant_id = $1`, [tenantId]);
    expect(currencies).toEqual(['CHF']);
    const [{ numbered }] = await db.query(`SELECT count(*)::int AS numbered FROM invoices WHERE tenant_id = $1 AND number ~ '^INV-\\d{4}-\\d{6}$'`, [tenantId]);
    expect(numbered).toBe(25 - statuses.find((s) => s.status === 'draft')!.n);
  });

  it('spreads created_at over time, with some identical to the microsecond', async () => {
    const { tenantId } = await seed(12);
    for (const table of ['invoices', 'payments', 'bills', 'purchase_orders']) {
      const [row] = await db.query(
        `SELECT count(DISTINCT created_at)::int AS distinct_times,
                (max(created_at) - min(created_at)) > interval '30 days' AS spread,
                bool_or(extract(microseconds FROM created_at)::bigint % 1000 <> 0) AS micro
         FROM ${table} WHERE tenant_id = $1`,
        [tenantId],
      );
      expect(row.distinct_times).toBeLessThan(12);
      expect(row.distinct_times).toBeGreaterThan(1);
      expect(row.spread).toBe(true);
      expect(row.micro).toBe(true);
    }
  });

  it('is repeatable with the same faker seed', async () => {
    const names = async (seedValue: number) => {
      const { tenantId } = await seed(3, seedValue);
      return (await db.query(`SELECT name FROM customers WHERE tenant_id = $1 ORDER BY created_at, name`, [tenantId])).map((r: { name: string }) => r.name);
    };
    expect(await names(99)).toEqual(await names(99));
  });
});
