import { Faker, en } from '@faker-js/faker';
import { DataSource } from 'typeorm';
import { FinanceDemoSeeder } from '../../src/finance/finance-demo.seeder.js';
import { TenantData } from '../../src/platform/tenancy/tenant-data.js';
import { Scope } from '../../src/platform/catalog/scopes.js';
import { startApi, type TestApi } from '../support/api.js';
import { countRows, expectProblem } from '../support/finance.js';
import { createTenantSession, type TenantSession } from '../support/tenant-session.js';

const RECORDS = 13;

const RESOURCES = [
  {
    path: 'invoices',
    table: 'invoices',
    scope: Scope.FinInvoicesRead,
    members: [
      'id', 'number', 'customer_id', 'status', 'currency', 'subtotal_minor', 'tax_minor', 'total_minor', 'paid_minor', 'balance_minor',
      'issue_date', 'due_date', 'issued_at', 'voided_at', 'einvoice_status', 'notes', 'sales_order_id', 'lines', 'created_at', 'updated_at',
    ],
  },
  {
    path: 'payments',
    table: 'payments',
    scope: Scope.FinPaymentsRead,
    members: ['id', 'tenant_id', 'invoice_id', 'bill_id', 'amount_minor', 'currency', 'direction', 'status', 'received_at', 'failure_reason', 'created_at', 'updated_at'],
  },
  {
    path: 'bills',
    table: 'bills',
    scope: Scope.FinBillsRead,
    members: [
      'id', 'number', 'supplier_name', 'purchase_order_id', 'status', 'currency', 'subtotal_minor', 'tax_minor', 'total_minor', 'paid_minor',
      'balance_minor', 'issue_date', 'due_date', 'created_at', 'updated_at',
    ],
  },
  {
    path: 'purchase_orders',
    table: 'purchase_orders',
    scope: Scope.FinPurchaseOrdersRead,
    members: ['id', 'number', 'supplier_name', 'status', 'currency', 'subtotal_minor', 'tax_minor', 'total_minor', 'order_date', 'expected_date', 'created_at', 'updated_at'],
  },
] as const;

describe('finance reads (e2e)', () => {
  let api: TestApi;
  let session: TenantSession;
  let db: DataSource;

  beforeAll(async () => {
    api = await startApi();
    db = api.app.get(DataSource);
    session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const faker = new Faker({ locale: [en], seed: 7 });
    await api.app.get(TenantData).transaction(session.tenant.id, (data) => api.app.get(FinanceDemoSeeder).seed({ data, records: RECORDS, faker }));
  });
  afterAll(() => api.close());

  describe.each(RESOURCES)('/v1/$path', ({ path, table, scope, members }) => {
    let auth: string;
    beforeAll(async () => {
      auth = (await session.newKey([scope])).auth;
    });

    it('pages through every record newest first, ties broken by id, without repeats', async () => {
      const seen: Record<string, unknown>[] = [];
      let cursor: string | undefined;
      do {
        const res = await api.http.get(`/v1/${path}`).query({ limit: 4, ...(cursor ? { cursor } : {}) }).set('Authorization', auth);
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
        expect(res.body.data.length).toBeLessThanOrEqual(4);
        expect(res.body.has_more).toBe(res.body.next_cursor !== null);
        seen.push(...res.body.data);
        cursor = res.body.next_cursor ?? undefined;
      } while (cursor);

      const expected: { id: string }[] = await db.query(`SELECT id FROM ${table} WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC`, [session.tenant.id]);
      expect(seen.map((item) => item.id)).toEqual(expected.map((row) => row.id));
      expect(new Set(seen.map((item) => item.id)).size).toBe(RECORDS);
      for (const item of seen) expect(Object.keys(item).sort()).toEqual([...members].sort());
    });

    it('retrieves each record as the list shows it', async () => {
      const list = await api.http.get(`/v1/${path}`).query({ limit: 3 }).set('Authorization', auth);
      expect(list.status).toBe(200);
      expect(list.body.data).toHaveLength(3);
      for (const item of list.body.data) {
        const res = await api.http.get(`/v1/${path}/${item.id}`).set('Authorization', auth);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(item);
      }
    });

    it(`answers errors.integrations.${path}.invalid_cursor for an unreadable or foreign cursor`, async () => {
      expectProblem(await api.http.get(`/v1/${path}`).query({ cursor: 'garbage' }).set('Authorization', auth), 422, `errors.integrations.${path}.invalid_cursor`);
      const otherPath = path === 'invoices' ? 'payments' : 'invoices';
      const all = (await session.newKey([Scope.All])).auth;
      const foreign = (await api.http.get(`/v1/${otherPath}`).query({ limit: 1 }).set('Authorization', all)).body.next_cursor as string;
      expectProblem(await api.http.get(`/v1/${path}`).query({ cursor: foreign }).set('Authorization', auth), 422, `errors.integrations.${path}.invalid_cursor`);
    });

    it(`answers 404 errors.integrations.${path}.not_found for an unknown id and invalid_input for a malformed one`, async () => {
      const problem = expectProblem(await api.http.get(`/v1/${path}/00000000-0000-4000-8000-000000000000`).set('Authorization', auth), 404, `errors.integrations.${path}.not_found`);
      expect(problem.code).toBe('not_found');
      expectProblem(await api.http.get(`/v1/${path}/123`).set('Authorization', auth), 422, 'errors.common.validation.invalid_input');
    });

    it(`needs ${scope}`, async () => {
      const other = RESOURCES.find((resource) => resource.scope !== scope)!;
      const key = await session.newKey([other.scope]);
      const [{ id }] = await db.query(`SELECT id FROM ${table} WHERE tenant_id = $1 LIMIT 1`, [session.tenant.id]);
      for (const url of [`/v1/${path}`, `/v1/${path}/${id}`]) {
        expect(expectProblem(await api.http.get(url).set('Authorization', key.auth), 403, 'errors.integrations.missing_scope').missing_scope).toBe(scope);
      }
    });
  });

  it('reads money as integers and amounts consistently', async () => {
    const auth = (await session.newKey([Scope.All])).auth;
    const invoices = (await api.http.get('/v1/invoices').query({ limit: 100 }).set('Authorization', auth)).body.data as Record<string, number | string>[];
    for (const invoice of invoices) {
      expect(invoice.total_minor).toBe((invoice.subtotal_minor as number) + (invoice.tax_minor as number));
      expect(invoice.balance_minor).toBe(invoice.status === 'void' ? 0 : (invoice.total_minor as number) - (invoice.paid_minor as number));
    }
    expect(new Set(invoices.map((invoice) => invoice.status))).toEqual(new Set(['draft', 'issued', 'partial', 'overdue', 'paid', 'void']));
    expect(await countRows(api.app, 'invoices', session.tenant.id)).toBe(RECORDS);
  });
});
