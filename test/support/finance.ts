import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { FinanceApplicationService } from '../../src/finance/finance-application.service.js';
import { ReferenceDataService } from '../../src/finance/reference-data.service.js';
import type { Scope } from '../../src/platform/catalog/scopes.js';
import { type ErrorDefinition, Errors, resourceErrors } from '../../src/platform/catalog/errors.js';
import { startApi, type TestApi } from './api.js';
import { createTenantSession, type TenantSession } from './tenant-session.js';

/** A company's finance reference data and helpers to drive the Finance application in tests. */
export interface FinanceFixture {
  customerId: string;
  productId: string;
  taxRateId: string;
  /** A valid create body, with overrides. */
  invoiceBody: (overrides?: Record<string, unknown>) => Record<string, unknown>;
  line: (overrides?: Record<string, unknown>) => Record<string, unknown>;
  issue: (invoiceId: string) => Promise<Record<string, unknown>>;
  markOverdue: (invoiceId: string) => Promise<Record<string, unknown>>;
  pay: (invoiceId: string, amountMinor: number) => Promise<Record<string, unknown>>;
  refund: (paymentId: string) => Promise<Record<string, unknown>>;
}

export async function createFinanceFixture(app: INestApplicationContext, tenantId: string): Promise<FinanceFixture> {
  const reference = app.get(ReferenceDataService);
  const finance = app.get(FinanceApplicationService);
  const customer = await reference.createCustomer(tenantId, 'Acme GmbH');
  const product = await reference.createProduct(tenantId, 'Consulting hour');
  const taxRate = await reference.createTaxRate(tenantId, '19');
  const line = (overrides: Record<string, unknown> = {}) => ({ description: 'Consulting', qty: 2, unit_price_minor: 1999, tax_rate: 19, ...overrides });
  return {
    customerId: customer.id,
    productId: product.id,
    taxRateId: taxRate.id,
    line,
    invoiceBody: (overrides = {}) => ({ customer_id: customer.id, currency: 'EUR', lines: [line()], ...overrides }),
    issue: async (id) => ({ ...(await finance.issue(tenantId, id)) }),
    markOverdue: async (id) => ({ ...(await finance.markOverdue(tenantId, id)) }),
    pay: async (id, amount) => ({ ...(await finance.recordPayment(tenantId, id, amount)) }),
    refund: async (id) => ({ ...(await finance.refundPayment(tenantId, id)) }),
  };
}

export interface FinanceApi {
  api: TestApi;
  session: TenantSession;
  fin: FinanceFixture;
  db: DataSource;
}

/** A started API with one company, a key of these scopes and the company's finance reference data. */
export async function startFinanceApi(
  options: { scopes?: Scope[]; currencies?: string[]; env?: Record<string, string> } = {},
): Promise<FinanceApi> {
  const api = await startApi({ env: options.env });
  const session = await createTenantSession(api.app, { scopes: options.scopes, currencies: options.currencies });
  const fin = await createFinanceFixture(api.app, session.tenant.id);
  return { api, session, fin, db: api.app.get(DataSource) };
}

/** The outbox rows of one company, oldest first. */
export async function outboxEvents(app: INestApplicationContext, tenantId: string): Promise<{ type: string; envelope: Record<string, unknown> }[]> {
  return app.get(DataSource).query(`SELECT type, envelope FROM events WHERE tenant_id = $1 ORDER BY created_at, id`, [tenantId]);
}

/** Rows of a finance table that belong to one company. */
export async function countRows(app: INestApplicationContext, table: string, tenantId: string): Promise<number> {
  const [{ count }] = await app.get(DataSource).query(`SELECT count(*)::int AS count FROM ${table} WHERE tenant_id = $1`, [tenantId]);
  return count as number;
}

interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** The catalogue's entry of a detail key: a fixed one, or a readable resource's own (`errors.integrations.invoices.not_found`). */
function catalogued(detailKey: string): ErrorDefinition | undefined {
  const resource = /^errors\.integrations\.(\w+)\.(invalid_cursor|not_found)$/.exec(detailKey);
  const own = resource && resourceErrors(resource[1])[resource[2] === 'not_found' ? 'notFound' : 'invalidCursor'];
  return Object.values(Errors).find((definition) => definition.detailKey === detailKey) ?? own ?? undefined;
}

/**
 * A problem+json answer with this status and detail_key, and the members spec 7 names: the
 * `type` URL of the key's catalogue entry, its title, a detail, and the trace id header.
 */
export function expectProblem(res: HttpAnswer, status: number, detailKey: string): Record<string, unknown> {
  expect({ status: res.status, detail_key: res.body.detail_key }).toEqual({ status, detail_key: detailKey });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const entry = catalogued(detailKey);
  expect(entry).toMatchObject({ status });
  expect(res.body).toMatchObject({ status, type: expect.stringMatching(new RegExp(`/errors/${entry!.type}$`)), title: entry!.title, detail: expect.stringMatching(/\S/) });
  expect(res.headers['x-trace-id']).toMatch(/^[0-9a-f]{32}$/);
  return res.body;
}
