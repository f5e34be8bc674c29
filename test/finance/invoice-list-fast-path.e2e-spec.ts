import { Faker, en } from '@faker-js/faker';
import { jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { FinanceDemoSeeder } from '../../src/finance/finance-demo.seeder.js';
import { LINE_JSON_BYTES, PAGE_BYTE_BUDGET } from '../../src/finance/invoice-rows.js';
import { invoicesResource } from '../../src/finance/invoices.resource.js';
import { ToolCatalog } from '../../src/mcp/tools/tool-catalog.js';
import { Scope } from '../../src/platform/catalog/scopes.js';
import { DomainException } from '../../src/platform/errors/domain.exception.js';
import type { Page } from '../../src/platform/pagination/page.js';
import type { ReadResource } from '../../src/platform/resources/read-resource.js';
import { ResourceReader } from '../../src/platform/resources/resource-reader.service.js';
import { TenantData } from '../../src/platform/tenancy/tenant-data.js';
import { startApi, type TestApi } from '../support/api.js';
import { createTenantSession, type TenantSession } from '../support/tenant-session.js';

const RECORDS = 17;

type Resource = ReadResource<any, any>;

/**
 * The invoice list's plain-SQL page (`invoicesResource.list`) against the generic reader it
 * replaces (the same declaration without `list`: query builder, hydration, `represent`): same
 * items byte for byte, order, `has_more` and cursors, which each path accepts from the other,
 * through the reader, the REST route and the `list_invoices` tool.
 */
describe('invoice list: plain-SQL page equals the generic reader (e2e)', () => {
  let api: TestApi;
  let session: TenantSession;
  let reader: ResourceReader;
  const generic: Resource = { ...invoicesResource, list: undefined };

  beforeAll(async () => {
    api = await startApi();
    reader = api.app.get(ResourceReader);
    const db = api.app.get(DataSource);
    const seed = async (tenantId: string, seedNumber: number) => {
      const faker = new Faker({ locale: [en], seed: seedNumber });
      await api.app.get(TenantData).transaction(tenantId, (data) => api.app.get(FinanceDemoSeeder).seed({ data, records: RECORDS, faker }));
    };
    session = await createTenantSession(api.app, { scopes: [Scope.All] });
    await seed(session.tenant.id, 11);
    // Another company's invoices, which neither path may show.
    await seed((await createTenantSession(api.app)).tenant.id, 12);
    // Ties: five invoices created within the same microsecond, ordered by id only.
    await db.query(
      `UPDATE invoices SET created_at = '2026-03-01 10:00:00.123456+00'
        WHERE id IN (SELECT id FROM invoices WHERE tenant_id = $1 ORDER BY id LIMIT 5)`,
      [session.tenant.id],
    );
    // An invoice without lines: the JSON array is empty, not null.
    await db.query(`DELETE FROM invoice_lines WHERE invoice_id = (SELECT id FROM invoices WHERE tenant_id = $1 ORDER BY id DESC LIMIT 1)`, [
      session.tenant.id,
    ]);
  });
  afterAll(() => api.close());

  const holder = () => `${session.tenant.id}/${session.keyId}`;
  const pageOf = (resource: Resource, limit: number, cursor?: string): Promise<Page<object>> =>
    reader.list(resource, session.tenant.id, { limit, cursor, holder: holder() });

  it.each([1, 2, 5, 16, 17, 18, 100])('walks every page alike at limit %i, each page and cursor identical', async (limit) => {
    let cursor: string | undefined;
    let pages = 0;
    do {
      const fast = await pageOf(invoicesResource, limit, cursor);
      const slow = await pageOf(generic, limit, cursor);
      expect(JSON.stringify(fast)).toBe(JSON.stringify(slow));
      cursor = fast.next_cursor ?? undefined;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(Math.max(1, Math.ceil(RECORDS / limit)));
  });

  it("accepts the other path's cursors and continues from the same position", async () => {
    const fromGeneric = (await pageOf(generic, 4)).next_cursor!;
    const fromFast = (await pageOf(invoicesResource, 4)).next_cursor!;
    expect(fromFast).toBe(fromGeneric);
    const tied = (await pageOf(generic, 9)).next_cursor!;
    expect(JSON.stringify(await pageOf(invoicesResource, 3, tied))).toBe(JSON.stringify(await pageOf(generic, 3, tied)));
  });

  it('refuses the same cursors with the same error: garbage, tampered, another list, another holder', async () => {
    const valid = (await pageOf(generic, 2)).next_cursor!;
    const searchCursor = (await reader.search(generic, session.tenant.id, 'INV', { limit: 1, holder: holder() })).next_cursor!;
    const otherKeys = (await reader.list(generic, session.tenant.id, { limit: 2, holder: `${session.tenant.id}/another-key` })).next_cursor!;
    const tampered = valid.slice(0, -2) + (valid.endsWith('AA') ? 'BB' : 'AA');
    for (const cursor of ['garbage', tampered, searchCursor, otherKeys, `${valid}.x`]) {
      const failure = async (resource: Resource) => {
        const error = await pageOf(resource, 2, cursor).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(DomainException);
        return { ...(error as DomainException), message: (error as Error).message };
      };
      expect(await failure(invoicesResource)).toEqual(await failure(generic));
    }
  });

  it('serves GET /v1/invoices through the plain-SQL page, answering what the generic reader answers', async () => {
    const list = jest.spyOn(invoicesResource as Required<typeof invoicesResource>, 'list');
    try {
      const first = await api.http.get('/v1/invoices').query({ limit: 6 }).set('Authorization', session.auth);
      expect(first.status).toBe(200);
      expect(first.body).toEqual(JSON.parse(JSON.stringify(await pageOf(generic, 6))));
      const second = await api.http.get('/v1/invoices').query({ limit: 6, cursor: first.body.next_cursor }).set('Authorization', session.auth);
      expect(second.body).toEqual(JSON.parse(JSON.stringify(await pageOf(generic, 6, first.body.next_cursor))));
      // Out-of-range limits clamp before either path sees them.
      const clamped = await api.http.get('/v1/invoices').query({ limit: 1000 }).set('Authorization', session.auth);
      expect(clamped.body).toEqual(JSON.parse(JSON.stringify(await pageOf(generic, 100))));
      expect(list).toHaveBeenCalledTimes(3);
    } finally {
      list.mockRestore();
    }
    const otherKey = await session.newKey([Scope.FinInvoicesRead]);
    const foreign = (await api.http.get('/v1/invoices').query({ limit: 2 }).set('Authorization', otherKey.auth)).body.next_cursor as string;
    const refused = await api.http.get('/v1/invoices').query({ cursor: foreign }).set('Authorization', session.auth);
    expect(refused.status).toBe(422);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.body.detail_key).toBe('errors.integrations.invoices.invalid_cursor');
  });

  it('ends a page early where its lines would pass PAGE_BYTE_BUDGET, with has_more and a cursor that continues after it', async () => {
    // Another company whose twelve invoices hold 500 lines each, of 8-byte descriptions.
    const heavy = await createTenantSession(api.app, { scopes: [Scope.All] });
    const faker = new Faker({ locale: [en], seed: 13 });
    await api.app.get(TenantData).transaction(heavy.tenant.id, (data) => api.app.get(FinanceDemoSeeder).seed({ data, records: 12, faker }));
    const db = api.app.get(DataSource);
    await db.query(`DELETE FROM invoice_lines WHERE tenant_id = $1`, [heavy.tenant.id]);
    await db.query(
      `INSERT INTO invoice_lines (tenant_id, invoice_id, position, description, qty, unit_price_minor, tax_rate, net_minor, tax_minor)
       SELECT i.tenant_id, i.id, n, 'Line ' || lpad(n::text, 3, '0'), 1, 100, 0, 100, 0 FROM invoices i CROSS JOIN generate_series(1, 500) AS n WHERE i.tenant_id = $1`,
      [heavy.tenant.id],
    );
    const perPage = Math.floor(PAGE_BYTE_BUDGET / (500 * (8 + LINE_JSON_BYTES)));
    const first = await api.http.get('/v1/invoices').query({ limit: 50 }).set('Authorization', heavy.auth);
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(perPage);
    expect(first.body.data.every((invoice: { lines: unknown[] }) => invoice.lines.length === 500)).toBe(true);
    expect(first.body.has_more).toBe(true);
    const second = await api.http.get('/v1/invoices').query({ limit: 50, cursor: first.body.next_cursor }).set('Authorization', heavy.auth);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    const ids = [...first.body.data, ...second.body.data].map((invoice: { id: string }) => invoice.id);
    const all = await db.query(`SELECT id FROM invoices WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC`, [heavy.tenant.id]);
    expect(ids).toEqual(all.map((row: { id: string }) => row.id));
    // A page the budget does not reach is the limit's, as before.
    const small = await api.http.get('/v1/invoices').query({ limit: 3 }).set('Authorization', heavy.auth);
    expect(small.body.data).toHaveLength(3);
    expect(small.body.has_more).toBe(true);

    // Bytes, not lines: 500 lines of 1,000 two-byte characters are over the budget alone, and end the page after them.
    await db.query(`UPDATE invoice_lines SET description = repeat('é', 1000) WHERE invoice_id = $1`, [all[0].id]);
    const wide = await api.http.get('/v1/invoices').query({ limit: 50 }).set('Authorization', heavy.auth);
    expect(wide.body.data.map((invoice: { id: string }) => invoice.id)).toEqual([all[0].id]);
    expect(wide.body.has_more).toBe(true);
  });

  it('answers the list_invoices tool as the generic reader would', async () => {
    const tools = (resource: Resource) =>
      new ToolCatalog({ resources: [resource], summaries: [] }, reader, api.app.get(TenantData)).resourceTool('list_invoices')!;
    let args: Record<string, unknown> = { limit: 7 };
    for (let call = 0; call < 3; call++) {
      const fast = await tools(invoicesResource).run(session.tenant.id, args);
      expect(JSON.stringify(fast)).toBe(JSON.stringify(await tools(generic).run(session.tenant.id, args)));
      if (!fast.next_cursor) break;
      args = { limit: 7, cursor: fast.next_cursor };
    }
  });
});
