import { Faker, en } from '@faker-js/faker';
import { DataSource } from 'typeorm';
import { FinanceDemoSeeder } from '../../src/finance/finance-demo.seeder.js';
import { TenantData } from '../../src/platform/tenancy/tenant-data.js';
import { Scope } from '../../src/platform/catalog/scopes.js';
import { startApi, type TestApi } from '../support/api.js';
import { createFinanceFixture, expectProblem, type FinanceFixture } from '../support/finance.js';
import { createTenantSession, type TenantSession } from '../support/tenant-session.js';

/** Company A's records are invisible and untouchable to company B, through the API and in the schema. */
describe('finance tenant isolation (e2e)', () => {
  let api: TestApi;
  let db: DataSource;
  let a: TenantSession;
  let b: TenantSession;
  let finA: FinanceFixture;
  let finB: FinanceFixture;
  const ids: Record<'invoices' | 'payments' | 'bills' | 'purchase_orders', string[]> = { invoices: [], payments: [], bills: [], purchase_orders: [] };

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    a = await createTenantSession(api.app, { scopes: [Scope.All] });
    b = await createTenantSession(api.app, { scopes: [Scope.All] });
    finA = await createFinanceFixture(api.app, a.tenant.id);
    finB = await createFinanceFixture(api.app, b.tenant.id);
    await api.app
      .get(TenantData)
      .transaction(a.tenant.id, (data) => api.app.get(FinanceDemoSeeder).seed({ data, records: 6, faker: new Faker({ locale: [en], seed: 3 }) }));
    const draft = await api.http.post('/v1/invoices').set('Authorization', a.auth).send(finA.invoiceBody());
    const issued = await api.http.post('/v1/invoices').set('Authorization', a.auth).send(finA.invoiceBody());
    await finA.issue(issued.body.id);
    expect([draft.status, issued.status]).toEqual([201, 201]);
    for (const table of Object.keys(ids) as (keyof typeof ids)[]) {
      ids[table] = (await db.query(`SELECT id FROM ${table} WHERE tenant_id = $1`, [a.tenant.id])).map((row: { id: string }) => row.id);
      expect(ids[table].length).toBeGreaterThan(0);
    }
  });
  afterAll(() => api.close());

  it.each(['invoices', 'payments', 'bills', 'purchase_orders'] as const)("answers 404 to every %s id of another company on retrieve and leaves it out of lists", async (resource) => {
    for (const id of ids[resource]) {
      expect((await api.http.get(`/v1/${resource}/${id}`).set('Authorization', a.auth)).status).toBe(200);
      const res = await api.http.get(`/v1/${resource}/${id}`).set('Authorization', b.auth);
      expectProblem(res, 404, `errors.integrations.${resource}.not_found`);
    }
    const listed = (await api.http.get(`/v1/${resource}`).query({ limit: 100 }).set('Authorization', b.auth)).body.data as { id: string }[];
    expect(listed.filter((item) => ids[resource].includes(item.id))).toEqual([]);
  });

  it("answers 404 to PATCH and void of every invoice of another company and changes nothing", async () => {
    const before = await db.query(`SELECT id, status, notes, updated_at FROM invoices WHERE tenant_id = $1 ORDER BY id`, [a.tenant.id]);
    for (const id of ids.invoices) {
      expectProblem(await api.http.patch(`/v1/invoices/${id}`).set('Authorization', b.auth).send({ notes: 'mine now' }), 404, 'errors.integrations.invoices.not_found');
      expectProblem(await api.http.post(`/v1/invoices/${id}/void`).set('Authorization', b.auth).send({ reason: 'x' }), 404, 'errors.integrations.invoices.not_found');
    }
    expect(await db.query(`SELECT id, status, notes, updated_at FROM invoices WHERE tenant_id = $1 ORDER BY id`, [a.tenant.id])).toEqual(before);
    expect(await db.query(`SELECT count(*)::int AS n FROM events WHERE tenant_id = $1`, [b.tenant.id])).toEqual([{ n: 0 }]);
  });

  describe('in the schema', () => {
    const expectForeignKeyViolation = async (sql: string, params: unknown[]) => {
      await expect(db.query(sql, params)).rejects.toMatchObject({ code: '23503' });
    };

    it("refuses an invoice of company B for company A's customer", async () => {
      await expectForeignKeyViolation(
        `INSERT INTO invoices (tenant_id, customer_id, status, currency, subtotal_minor, tax_minor, total_minor, balance_minor, issue_date, due_date)
         VALUES ($1, $2, 'draft', 'EUR', 0, 0, 0, 0, '2026-01-01', '2026-01-15')`,
        [b.tenant.id, finA.customerId],
      );
    });

    it("refuses a line of company B's invoice that names company A's product or tax rate", async () => {
      const invoice = await api.http.post('/v1/invoices').set('Authorization', b.auth).send(finB.invoiceBody());
      const line = `INSERT INTO invoice_lines (tenant_id, invoice_id, position, description, qty, unit_price_minor, tax_rate, product_id, tax_rate_id, net_minor, tax_minor)
                    VALUES ($1, $2, 9, 'x', 1, 1, 0, $3, $4, 1, 0)`;
      await expectForeignKeyViolation(line, [b.tenant.id, invoice.body.id, finA.productId, null]);
      await expectForeignKeyViolation(line, [b.tenant.id, invoice.body.id, null, finA.taxRateId]);
      await expectForeignKeyViolation(line, [a.tenant.id, invoice.body.id, null, null]);
    });

    it("refuses a payment, credit note or bill of company B that points at company A's records", async () => {
      await expectForeignKeyViolation(
        `INSERT INTO payments (tenant_id, invoice_id, amount_minor, currency, direction, status, received_at) VALUES ($1, $2, 1, 'EUR', 'in', 'received', now())`,
        [b.tenant.id, ids.invoices[0]],
      );
      await expectForeignKeyViolation(
        `INSERT INTO payments (tenant_id, bill_id, amount_minor, currency, direction, status, received_at) VALUES ($1, $2, 1, 'EUR', 'out', 'received', now())`,
        [b.tenant.id, ids.bills[0]],
      );
      await expectForeignKeyViolation(
        `INSERT INTO credit_notes (tenant_id, invoice_id, number, currency, subtotal_minor, tax_minor, total_minor) VALUES ($1, $2, 'CN-X', 'EUR', 0, 0, 0)`,
        [b.tenant.id, ids.invoices[0]],
      );
      await expectForeignKeyViolation(
        `INSERT INTO bills (tenant_id, number, supplier_name, purchase_order_id, status, currency, subtotal_minor, tax_minor, total_minor, balance_minor, issue_date, due_date)
         VALUES ($1, 'B-1', 'S', $2, 'open', 'EUR', 0, 0, 0, 0, '2026-01-01', '2026-01-01')`,
        [b.tenant.id, ids.purchase_orders[0]],
      );
    });
  });
});
