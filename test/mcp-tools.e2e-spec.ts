import type { Client } from '@modelcontextprotocol/client';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import pg from 'pg';
import { loadAreaSummaries, READ_RESOURCES } from '../src/app/features.js';
import { ToolCatalog } from '../src/mcp/tools/tool-catalog.js';
import { ResourceReader } from '../src/platform/resources/resource-reader.service.js';
import { TenantData } from '../src/platform/tenancy/tenant-data.js';
import { startApi } from './support/api.js';
import { runCli } from './support/cli.js';
import { credentials, modernClient, shortcut, startMcp, type TestMcp } from './support/mcp.js';

interface Demo {
  tenant: { id: string; slug: string };
  mcp_token: string;
  keys: { finance_write: string };
  customer_ids: string[];
}

const text = (result: any): string => result.content[0].text as string;
const enumOf = (tool: { inputSchema: { properties?: Record<string, any> } }): string[] =>
  tool.inputSchema.properties!.resource?.enum ?? tool.inputSchema.properties!.resources?.items?.enum ?? tool.inputSchema.properties!.area?.enum;

/** The compact tool set, toolsets per connection, lean results and hostile arguments (issue 17). */
describe('agent-tool server: a compact, selectable tool set (e2e)', () => {
  let mcp: TestMcp;
  let demo: Demo;
  let client: Client;

  /** A raw JSON-RPC POST /mcp, as a 2026-07-28 client sends it. */
  const rpc = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${mcp.base}/mcp`, {
      method: 'POST',
      headers: {
        ...credentials(demo.mcp_token, demo.tenant.slug),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    // The SDK answers 2025-era requests in its SSE framing: one `data:` line.
    const json = text.startsWith('event:') ? /^data: (.*)$/m.exec(text)![1] : text;
    return { status: response.status, body: JSON.parse(json) as any };
  };

  beforeAll(async () => {
    demo = (await runCli('seed:demo', '--records', '25')).json as unknown as Demo;
    mcp = await startMcp({ MCP_RATE_LIMIT_PER_MINUTE: '1000', MCP_TENANT_RATE_LIMIT_PER_MINUTE: '1000' });
    client = await modernClient(mcp.base, demo.mcp_token, demo.tenant.slug);
  });
  afterAll(async () => {
    await client?.close();
    await mcp?.close();
  });

  it('lists at most 20 tools in at most 32,000 bytes for a token with every tool, every resource reachable', async () => {
    const listed = await shortcut(mcp.base, '/tools/list', credentials(demo.mcp_token, demo.tenant.slug));
    const bytes = Buffer.byteLength(JSON.stringify(listed.body));
    console.log(`tools/list: ${listed.body!.tools.length} tools, ${bytes} bytes (about ${Math.round(bytes / 4)} tokens)`);
    expect(listed.body!.tools.length).toBeLessThanOrEqual(20);
    expect(bytes).toBeLessThanOrEqual(32_000);
    const reachable = listed.body!.tools.filter((tool: any) => tool.name !== 'summarise').map(enumOf);
    for (const resources of reachable) expect(resources).toEqual(READ_RESOURCES.map((resource) => resource.name));
  });

  it("says what search_records searches each kind on, from the kinds' declarations: it claimed names and e-mails of every kind", async () => {
    const listed = await shortcut(mcp.base, '/tools/list', credentials(demo.mcp_token, demo.tenant.slug));
    const search = listed.body!.tools.find((tool: any) => tool.name === 'search_records');
    for (const resource of READ_RESOURCES) expect(search.description).toContain(`${resource.name} (${resource.searchable.join(', ')})`);
  });

  describe('toolsets per connection', () => {
    it('narrows X-MCP-Toolsets: finance,hr to those areas, for listing and for calling', async () => {
      const narrowed = await modernClient(mcp.base, demo.mcp_token, demo.tenant.slug, { 'X-MCP-Toolsets': 'finance, hr' });
      try {
        const { tools } = await narrowed.listTools();
        const inAreas = READ_RESOURCES.filter((resource) => ['finance', 'hr'].includes(resource.area)).map((resource) => resource.name);
        for (const tool of tools) expect([tool.name, enumOf(tool)]).toEqual([tool.name, tool.name === 'summarise' ? ['finance', 'hr'] : inAreas]);
        expect((await narrowed.callTool({ name: 'list_records', arguments: { resource: 'employees' } })).isError).toBeFalsy();
        expect((await narrowed.callTool({ name: 'list_records', arguments: { resource: 'vehicles' } })).isError).toBe(true);
        await expect(narrowed.callTool({ name: 'list_vehicles', arguments: {} })).rejects.toMatchObject({ code: -32602 });
      } finally {
        await narrowed.close();
      }
    });

    it('lists and allows exactly the tools X-MCP-Tools names, resource tools included', async () => {
      const named = await modernClient(mcp.base, demo.mcp_token, demo.tenant.slug, { 'X-MCP-Tools': 'search_invoices,get_invoices,summarise' });
      try {
        expect((await named.listTools()).tools.map((tool) => tool.name)).toEqual(['summarise', 'get_invoices', 'search_invoices']);
        expect((await named.callTool({ name: 'search_invoices', arguments: { query: 'INV' } })).isError).toBeFalsy();
        await expect(named.callTool({ name: 'list_invoices', arguments: {} })).rejects.toMatchObject({ code: -32602 });
      } finally {
        await named.close();
      }
    });

    it.each([
      ['X-MCP-Toolsets', 'finance,payroll', /Unknown toolset payroll.*finance, fleet, hr, support, documents/],
      ['X-MCP-Tools', 'list_records,drop_invoices', /Unknown tool drop_invoices/],
    ])('answers an unknown name in %s with a JSON-RPC invalid-params error (on the shortcuts a 422), not an empty list', async (name, value, message) => {
      const answer = await rpc({ jsonrpc: '2.0', id: 7, method: 'tools/list' }, { [name]: value });
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602, message: expect.stringMatching(message) } });
      expect(answer.body.result).toBeUndefined();
      // The REST shortcuts answer it as they answer every refusal: a problem naming the header.
      for (const path of ['/tools/list', '/tools/call'] as const) {
        const refused = await shortcut(mcp.base, path, { ...credentials(demo.mcp_token, demo.tenant.slug), [name]: value }, { name: 'list_records', arguments: {} });
        expect(refused.status).toBe(422);
        expect(refused.headers.get('content-type')).toBe('application/problem+json');
        expect(refused.body).toMatchObject({ detail_key: 'errors.mcp.invalid_request', field: name, detail: expect.stringMatching(message) });
      }
      // A batch (2025-03-26) refused for it is answered as JSON-RPC 2.0 answers a batch: an array, one error per request, none for its notification.
      const batch = await rpc(
        [
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 'two', method: 'tools/list' },
        ],
        { [name]: value, 'mcp-protocol-version': '2025-03-26' },
      );
      expect(batch.status).toBe(200);
      expect(batch.body).toEqual([1, 'two'].map((id) => ({ jsonrpc: '2.0', id, error: expect.objectContaining({ code: -32602, message: expect.stringMatching(message) }) })));
    });

    it.each([
      ['an unknown toolset', { method: 'notifications/initialized' }, { 'X-MCP-Toolsets': 'payroll' }],
      ['U+0000 in its params', { method: 'notifications/cancelled', params: { requestId: 1, reason: 'a\u0000' } }, {}],
    ])('refuses a notification with %s by an HTTP 400, never a JSON-RPC answer with 200', async (_, message, headers) => {
      const answer = await rpc({ jsonrpc: '2.0', ...message }, headers);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32602 } });
    });
  });

  describe('lean results', () => {
    it('answers a default invoice list in at most 10,000 bytes: 10 items, no nulls or empty arrays, lines counted', async () => {
      const result: any = await client.callTool({ name: 'list_records', arguments: { resource: 'invoices' } });
      const bytes = Buffer.byteLength(text(result));
      console.log(`list_records(invoices): ${result.structuredContent.data.length} items, ${bytes} bytes (about ${Math.round(bytes / 4)} tokens)`);
      expect(bytes).toBeLessThanOrEqual(10_000);
      expect(result.structuredContent.data).toHaveLength(10);
      expect(JSON.parse(text(result))).toEqual(result.structuredContent);
      expect(text(result)).not.toMatch(/null|\[\]/);
      for (const invoice of result.structuredContent.data) {
        expect(invoice.lines).toBeUndefined();
        expect(invoice.line_count).toBeGreaterThan(0);
      }
    });

    it('reads an argument given as null as one left out (strict function calling sends null for optional ones), on /mcp and /tools/call', async () => {
      const args = { resource: 'invoices', limit: null, cursor: null, fields: null };
      const result: any = await client.callTool({ name: 'list_records', arguments: args });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent.data).toHaveLength(10);
      const called = await shortcut(mcp.base, '/tools/call', credentials(demo.mcp_token, demo.tenant.slug), { name: 'list_records', arguments: args });
      expect(called.status).toBe(200);
      expect(called.body!.structuredContent.data).toHaveLength(10);
      // Arguments given as null altogether: none.
      const none = await rpc({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'recent_changes', arguments: null } });
      expect(none.status).toBe(200);
      expect(none.body.result.isError).toBeFalsy();
      const noneCalled = await shortcut(mcp.base, '/tools/call', credentials(demo.mcp_token, demo.tenant.slug), { name: 'recent_changes', arguments: null });
      expect(noneCalled.status).toBe(200);
      // A required argument given as null is missing.
      const missing: any = await client.callTool({ name: 'list_records', arguments: { resource: null } });
      expect(missing.isError).toBe(true);
    });

    it('gives the members `fields` names, lines in full when named, and refuses a member the resource lacks', async () => {
      const chosen: any = await client.callTool({ name: 'list_records', arguments: { resource: 'invoices', limit: 2, fields: ['number', 'lines'] } });
      for (const invoice of chosen.structuredContent.data) {
        expect(Object.keys(invoice).sort()).toEqual(['id', 'lines', 'number'].filter((member) => member !== 'number' || invoice.number !== undefined).sort());
        expect(invoice.lines.length).toBeGreaterThan(0);
      }
      const refused: any = await client.callTool({ name: 'list_records', arguments: { resource: 'invoices', fields: ['colour'] } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^fields: invoices have no member colour/);
      // And which it has: the compact tools' output schemas do not say.
      expect(text(refused)).toMatch(/their members: .*\bnumber\b.*\bline_count\b/);
    });

    it('searches across resources, each item naming its resource, exact matches first', async () => {
      const listed: any = await client.callTool({ name: 'list_records', arguments: { resource: 'invoices', fields: ['number'] } });
      const invoice = listed.structuredContent.data.find((item: { number?: string }) => item.number !== undefined);
      const found: any = await client.callTool({ name: 'search_records', arguments: { query: invoice.number } });
      expect(found.structuredContent.data[0]).toMatchObject({ resource: 'invoices', id: invoice.id });
    });
    it('names the 20 most common MIME types in the documents summary and counts the rest, however many kinds a company has', async () => {
      const tenant = (await runCli('tenant:create', '--name', 'Many Kinds')).json as { id: string; slug: string };
      const user = (await runCli('user:create', '--tenant', tenant.id, '--email', 'kinds@example.test', '--permissions', 'files.documents:read')).json.id as string;
      const token = (await runCli('mcp-token:create', '--tenant', tenant.id, '--user', user, '--tools', '*')).json.token as string;
      const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await db.connect();
      try {
        // Kind k has k documents: 325 in all, kinds 25 down to 6 the 20 most common.
        await db.query(
          `INSERT INTO documents (tenant_id, file_name, mime_type, size_bytes, checksum_sha256, owner_type, owner_id, uploaded_at)
           SELECT $1, 'f.bin', 'application/x-kind-' || k, 10, repeat('a', 64), 'vehicle', gen_random_uuid(), now()
             FROM generate_series(1, 25) k, generate_series(1, k)`,
          [tenant.id],
        );
        // A MIME type is at most 127 + 1 + 127 characters: no longer one grows an answer that names it.
        await expect(
          db.query(
            `INSERT INTO documents (tenant_id, file_name, mime_type, size_bytes, checksum_sha256, owner_type, owner_id, uploaded_at)
             VALUES ($1, 'long.bin', 'application/' || repeat('x', 244), 10, repeat('a', 64), 'vehicle', gen_random_uuid(), now())`,
            [tenant.id],
          ),
        ).rejects.toMatchObject({ code: '23514', constraint: 'documents_mime_type_length' });
      } finally {
        await db.end();
      }
      const summary = await shortcut(mcp.base, '/tools/call', credentials(token, tenant.slug), { name: 'summarise', arguments: { area: 'documents' } });
      expect(summary.status).toBe(200);
      const kinds = Array.from({ length: 20 }, (_, index) => 25 - index);
      expect(summary.body!.structuredContent).toEqual({
        documents: 325,
        total_size_bytes: 3250,
        by_mime_type: Object.fromEntries(kinds.map((kind) => [`application/x-kind-${kind}`, kind])),
        other_mime_types: 15,
        by_owner_type: { vehicle: 325 },
      });
      expect(Object.keys(summary.body!.structuredContent.by_mime_type)).toEqual(kinds.map((kind) => `application/x-kind-${kind}`));
    });

    it('keeps a page of one named kind within the budget with the resource member each item gains', async () => {
      let cut = 0;
      for (const resource of READ_RESOURCES) {
        const answer: any = await client.callTool({ name: 'recent_changes', arguments: { resources: [resource.name], since: '2000-01-01T00:00:00Z', limit: 50 } });
        expect(answer.isError).toBeFalsy();
        expect(answer.structuredContent.data.every((item: any) => item.resource === resource.name)).toBe(true);
        expect(Buffer.byteLength(JSON.stringify(answer.structuredContent.data))).toBeLessThanOrEqual(9_000);
        expect(Buffer.byteLength(text(answer))).toBeLessThanOrEqual(10_000);
        if (answer.structuredContent.next_cursor && answer.structuredContent.data.length < 25) cut += 1;
      }
      // The bound was tested where it binds: pages the budget cut short.
      expect(cut).toBeGreaterThan(0);
    });

    // Before: since was cut to the millisecond (a record changed 1 µs before it was listed), and `t`/`z` refused.
    it('reads recent_changes since to the microsecond, as the REST API reads it, in any case', async () => {
      const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await db.connect();
      try {
        const [vehicle] = (await db.query(`SELECT id, updated_at FROM vehicles WHERE tenant_id = $1 LIMIT 1`, [demo.tenant.id])).rows;
        await db.query(`UPDATE vehicles SET updated_at = '2099-01-01T00:00:00.647534Z' WHERE id = $1`, [vehicle.id]);
        try {
          const ids = async (since: string) => {
            const result: any = await client.callTool({ name: 'recent_changes', arguments: { since, resources: ['vehicles'], fields: ['id'] } });
            expect(result.isError).toBeFalsy();
            return result.structuredContent.data.map((item: { id: string }) => item.id);
          };
          expect(await ids('2099-01-01T00:00:00.647534Z')).toEqual([vehicle.id]);
          expect(await ids('2099-01-01t00:00:00.647534z')).toEqual([vehicle.id]);
          expect(await ids('2099-01-01T00:00:00.647535Z')).toEqual([]);
          expect(await ids('2099-01-01T00:00:00.6479Z')).toEqual([]);
        } finally {
          await db.query(`UPDATE vehicles SET updated_at = $2 WHERE id = $1`, [vehicle.id, vehicle.updated_at]);
        }
      } finally {
        await db.end();
      }
    });

    it('ranks the page of one named kind too: the exact match before newer partial ones', async () => {
      const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await db.connect();
      try {
        const { rows } = await db.query(`SELECT id FROM vehicles WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC LIMIT 3`, [demo.tenant.id]);
        for (const [index, registration] of ['RANK-11', 'RANK-10', 'RANK-1'].entries()) {
          await db.query(`UPDATE vehicles SET registration = $2 WHERE id = $1`, [rows[index].id, registration]);
        }
      } finally {
        await db.end();
      }
      const found: any = await client.callTool({ name: 'search_records', arguments: { query: 'RANK-1', resources: ['vehicles'] } });
      // Before: newest first, the exact match last.
      expect(found.structuredContent.data.map((item: { registration: string }) => item.registration)).toEqual(['RANK-1', 'RANK-11', 'RANK-10']);
      // Ranked on the whole record, then cut to the fields named.
      const chosen: any = await client.callTool({ name: 'search_records', arguments: { query: 'RANK-1', resources: ['vehicles'], fields: ['status'] } });
      expect(chosen.structuredContent.data.map((item: { id: string }) => item.id)).toEqual(found.structuredContent.data.map((item: { id: string }) => item.id));
      for (const item of chosen.structuredContent.data) expect(Object.keys(item).sort()).toEqual(['id', 'resource', 'status']);
    });

    it('takes fields across kinds: a member one kind has is kept for it, ranking still sees what fields leaves out', async () => {
      const listed: any = await client.callTool({ name: 'list_records', arguments: { resource: 'invoices', fields: ['number'] } });
      const invoice = listed.structuredContent.data.find((item: { number?: string }) => item.number !== undefined);
      const found: any = await client.callTool({
        name: 'search_records',
        arguments: { query: invoice.number, resources: ['invoices', 'vehicles'], fields: ['number', 'registration'] },
      });
      expect(found.isError).toBeFalsy();
      expect(found.structuredContent.data[0]).toEqual({ resource: 'invoices', id: invoice.id, number: invoice.number });
      for (const item of found.structuredContent.data) {
        expect(['resource', 'id', 'number', 'registration']).toEqual(expect.arrayContaining(Object.keys(item)));
      }
      const recent: any = await client.callTool({ name: 'recent_changes', arguments: { resources: ['invoices', 'vehicles'], fields: ['registration'] } });
      expect(recent.structuredContent.data.some((item: any) => item.resource === 'vehicles' && item.registration !== undefined)).toBe(true);
      for (const item of recent.structuredContent.data) expect(item.updated_at).toBeUndefined();
      const refused: any = await client.callTool({ name: 'search_records', arguments: { query: 'a', resources: ['invoices', 'vehicles'], fields: ['colour'] } });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^fields: None of invoices, vehicles has a member colour/);
    });
    it('says how to reach what a merged page leaves out: the records left are older, so only paging one kind reaches them', async () => {
      const recent: any = await client.callTool({ name: 'recent_changes', arguments: { since: '1970-01-01T00:00:00Z', limit: 2, fields: ['id'] } });
      expect(recent.structuredContent.data).toHaveLength(2);
      expect(recent.structuredContent.hint).toBe('More results: name one resource in resources and page with next_cursor.');
      const found: any = await client.callTool({ name: 'search_records', arguments: { query: 'a', limit: 1 } });
      expect(found.structuredContent.data).toHaveLength(1);
      expect(found.structuredContent.hint).toBe('More results: narrow the query, or name one resource in resources and page with next_cursor.');
    });
    it('pages a search or a time only with its own cursor: one of another query or since is refused', async () => {
      const search = (query: string, cursor?: string) =>
        client.callTool({ name: 'search_records', arguments: { query, resources: ['invoices'], limit: 1, fields: ['id'], ...(cursor ? { cursor } : {}) } }) as Promise<any>;
      const first = await search('INV');
      const cursor = first.structuredContent.next_cursor;
      expect(cursor).toEqual(expect.any(String));
      expect((await search('INV', cursor)).isError).toBeFalsy();
      // The same query in another case or spacing is the same search.
      expect((await search('  inv ', cursor)).isError).toBeFalsy();
      // Before: accepted, answering the other query's records from the first one's position.
      const other = await search('Consulting', cursor);
      expect(other.isError).toBe(true);
      expect(text(other)).toMatch(/^cursor: /);

      const recent = (since: string, cursor?: string) =>
        client.callTool({ name: 'recent_changes', arguments: { since, resources: ['invoices'], limit: 1, fields: ['id'], ...(cursor ? { cursor } : {}) } }) as Promise<any>;
      const page = await recent('1970-01-01T00:00:00Z');
      expect((await recent('1971-01-01T00:00:00Z', page.structuredContent.next_cursor)).isError).toBe(true);
      // The same instant spelt otherwise pages on (before: refused as not this list's).
      expect((await recent('1970-01-01T00:00:00.000Z', page.structuredContent.next_cursor)).isError).toBeFalsy();
    });
  });

  describe('a record larger than a result', () => {
    let invoiceId: string;

    beforeAll(async () => {
      // 500 lines of 1,000 characters, two bytes each in UTF-8: over 1 MB as one record.
      const api = await startApi();
      try {
        const lines = Array.from({ length: 500 }, (_, index) => ({ description: `${String(index).padStart(3, '0')} ${'Ü'.repeat(996)}`, qty: 1, unit_price_minor: 1, tax_rate: 0 }));
        const created = await api.http
          .post('/v1/invoices')
          .set('Authorization', `Bearer ${demo.keys.finance_write}`)
          .send({ customer_id: demo.customer_ids[0], currency: 'EUR', lines, notes: 'Ü'.repeat(2000) });
        expect(created.status).toBe(201);
        invoiceId = created.body.id;
      } finally {
        await api.close();
      }
    });

    const expectCut = (result: any, invoice: any) => {
      expect(result.isError).toBeFalsy();
      expect(Buffer.byteLength(text(result))).toBeLessThanOrEqual(10_000);
      expect(invoice).toMatchObject({ id: invoiceId, line_count: 500 });
      expect(invoice.lines.length).toBeGreaterThan(0);
      expect(invoice.lines.length).toBeLessThan(500);
      expect(invoice.lines.map((line: { description: string }) => line.description.slice(0, 3))).toEqual(invoice.lines.map((_: unknown, index: number) => String(index).padStart(3, '0')));
      expect(result.structuredContent.hint).toMatch(new RegExp(`lines holds the first ${invoice.lines.length} of line_count`));
    };

    it.each([
      ['get_record', { resource: 'invoices' }],
      ['get_invoices', {}],
    ])('%s keeps the leading lines that fit, with their count and a hint', async (name, args) => {
      const result: any = await client.callTool({ name, arguments: { ...args, id: invoiceId } });
      expectCut(result, result.structuredContent);
      expect(result.structuredContent.notes).toBe('Ü'.repeat(2000));
    });

    it('search_records keeps line_count beside the lines it cut, as many as a list shows, for one kind and across kinds', async () => {
      const listed: any = await client.callTool({ name: 'list_records', arguments: { resource: 'invoices', limit: 1, fields: ['lines'] } });
      const fitting = listed.structuredContent.data[0].lines.length;
      for (const resources of [['invoices'], ['invoices', 'bills']]) {
        const result: any = await client.callTool({ name: 'search_records', arguments: { query: 'ÜÜÜÜ', resources, fields: ['lines'] } });
        expect(result.structuredContent.data).toHaveLength(1);
        const [invoice] = result.structuredContent.data;
        expect(Object.keys(invoice).sort()).toEqual(['id', 'line_count', 'lines', 'resource']);
        expect(invoice).toMatchObject({ resource: 'invoices', id: invoiceId, line_count: 500 });
        // The notes the search ranks on (4 kB here) take no room from the lines shown: they were cut to fewer.
        expect(invoice.lines).toHaveLength(fitting);
        // Before, nothing said whether the rest could be reached (it cannot), nor how to get more of it.
        expect(result.structuredContent.hint).toBe(
          `Cut to fit the result size: lines holds the first ${fitting} of line_count. Naming only the members you need in fields leaves them more room; no tool shows more of one record.`,
        );
      }
    });

    it('counts the lines, without them, when fields names line_count', async () => {
      const record: any = await client.callTool({ name: 'get_record', arguments: { resource: 'invoices', id: invoiceId, fields: ['line_count', 'currency'] } });
      expect(record.structuredContent).toEqual({ id: invoiceId, line_count: 500, currency: 'EUR' });
      // The list's read stops after a record this large (its page is cut short); the next page holds the others.
      const first: any = await client.callTool({ name: 'list_records', arguments: { resource: 'invoices', limit: 3, fields: ['line_count'] } });
      expect(first.structuredContent.data).toEqual([{ id: invoiceId, line_count: 500 }]);
      const next: any = await client.callTool({ name: 'list_records', arguments: { resource: 'invoices', limit: 3, fields: ['line_count'], cursor: first.structuredContent.next_cursor } });
      expect(next.structuredContent.data).toHaveLength(3);
      for (const invoice of next.structuredContent.data) expect(invoice).toEqual({ id: expect.any(String), line_count: expect.any(Number) });
      // Both named: the lines and their count.
      const both: any = await client.callTool({ name: 'list_records', arguments: { resource: 'invoices', limit: 3, fields: ['lines', 'line_count'], cursor: first.structuredContent.next_cursor } });
      expect(both.structuredContent.data).toHaveLength(3);
      for (const invoice of both.structuredContent.data) expect(invoice.line_count).toBe(invoice.lines.length);
    });

    it('list_records with lines in fields cuts the one record its page holds, and pages on', async () => {
      const result: any = await client.callTool({ name: 'list_records', arguments: { resource: 'invoices', limit: 5, fields: ['lines'] } });
      expect(result.structuredContent.data).toHaveLength(1);
      expectCut(result, result.structuredContent.data[0]);
      expect(result.structuredContent.hint).toMatch(/call this tool again with the same arguments and cursor/);
      // One of the five asked for: before, nothing said that fewer members would bring more per call.
      expect(result.structuredContent.hint).toMatch(/Fewer records than asked fit the result size: name only the members you need in fields/);
      const next: any = await client.callTool({ name: 'list_records', arguments: { resource: 'invoices', limit: 5, fields: ['lines'], cursor: result.structuredContent.next_cursor } });
      expect(next.isError).toBeFalsy();
      expect(next.structuredContent.data[0].id).not.toBe(invoiceId);
    });

    it('names the cut record in a merged result of several records', async () => {
      // A payment the search finds beside the large invoice, small enough to be shown with it.
      const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await db.connect();
      let paymentId: string;
      try {
        const sql = `UPDATE payments SET status = 'failed', failure_reason = 'ÜÜÜÜ beside' WHERE id = (SELECT id FROM payments WHERE tenant_id = $1 AND refunded_at IS NULL ORDER BY created_at LIMIT 1) RETURNING id`;
        [{ id: paymentId }] = (await db.query(sql, [demo.tenant.id])).rows;
      } finally {
        await db.end();
      }
      const result: any = await client.callTool({ name: 'search_records', arguments: { query: 'ÜÜÜÜ', fields: ['lines'] } });
      expect(result.structuredContent.data.map((item: any) => [item.resource, item.id])).toEqual([
        ['invoices', invoiceId],
        ['payments', paymentId],
      ]);
      const [invoice] = result.structuredContent.data;
      expect(invoice.line_count).toBe(500);
      // Before, a cut was said only when the result held one record: this one read as the whole invoice.
      expect(result.structuredContent.hint).toBe(
        `Cut to fit the result size: invoices ${invoiceId}: lines holds the first ${invoice.lines.length} of line_count. Naming only the members you need in fields leaves them more room; no tool shows more of one record.`,
      );
    });

    it('recent_changes across kinds shows no record older than one it left out', async () => {
      // A small invoice changed after the large one: the invoices' page holds it alone (the large
      // one after it does not fit), and every payment changed before both.
      const api = await startApi();
      let newest: string;
      try {
        const created = await api.http
          .post('/v1/invoices')
          .set('Authorization', `Bearer ${demo.keys.finance_write}`)
          .send({ customer_id: demo.customer_ids[0], currency: 'EUR', lines: [{ description: 'small', qty: 1, unit_price_minor: 1, tax_rate: 0 }] });
        expect(created.status).toBe(201);
        newest = created.body.id;
      } finally {
        await api.close();
      }
      const result: any = await client.callTool({ name: 'recent_changes', arguments: { resources: ['invoices', 'payments'], since: '1970-01-01T00:00:00Z', fields: ['lines'] } });
      // Before: the small invoice, then payments older than the large invoice it left out.
      expect(result.structuredContent.data.map((item: any) => item.id)).toEqual([newest]);
      expect(result.structuredContent.hint).toBe('More results: name one resource in resources and page with next_cursor.');
    });
  });

  describe('a record whose text alone is larger than a result', () => {
    let paymentId: string;

    beforeAll(async () => {
      const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await db.connect();
      try {
        const [payment] = (
          await db.query(`UPDATE payments SET status = 'failed', failure_reason = $2 WHERE id = (SELECT id FROM payments WHERE tenant_id = $1 ORDER BY created_at DESC LIMIT 1) RETURNING id`, [
            demo.tenant.id,
            `HUGEREASON ${'😀'.repeat(250_000)}`,
          ])
        ).rows;
        paymentId = payment.id;
      } finally {
        await db.end();
      }
    });

    it.each([
      ['get_record', { resource: 'payments', id: '' }, (content: any) => content],
      ['list_records', { resource: 'payments', limit: 1 }, (content: any) => content.data[0]],
      ['search_records', { query: 'HUGEREASON' }, (content: any) => content.data[0]],
    ] as const)('%s cuts the text to fit the result, whole characters, with a hint', async (name, args, item) => {
      const result: any = await client.callTool({ name, arguments: { ...args, ...('id' in args ? { id: paymentId } : {}) } });
      expect(result.isError).toBeFalsy();
      // Before: 1 MB of reason in each copy of the result.
      expect(Buffer.byteLength(text(result))).toBeLessThanOrEqual(10_000);
      const payment = item(result.structuredContent);
      expect(payment.id).toBe(paymentId);
      expect(payment.failure_reason).toMatch(/^HUGEREASON (😀)+…$/u);
      expect(result.structuredContent.hint).toMatch(/failure_reason holds its first \d+ of 250011 characters/);
    });

    it('names no cut of a member fields leaves out: a search reads what it ranks, then trims it, of one kind or all', async () => {
      for (const resources of [['payments'], undefined]) {
        const result: any = await client.callTool({ name: 'search_records', arguments: { query: 'HUGEREASON', resources, fields: ['status'] } });
        expect(result.structuredContent.data).toEqual([{ resource: 'payments', id: paymentId, status: 'failed' }]);
        expect(result.structuredContent.hint).toBeUndefined();
      }
    });

    it('spends the result size on what fields shows: a page is not cut short by the members its ranking reads', async () => {
      const listed: any = await client.callTool({ name: 'list_records', arguments: { resource: 'payments', limit: 50, fields: ['status'] } });
      expect(listed.structuredContent.next_cursor).toBeUndefined();
      const all = listed.structuredContent.data.map((item: { id: string }) => item.id).sort();
      expect(all.length).toBeGreaterThan(1);
      // Before: the 1 MB failure_reason the ranking reads filled the page, one payment per call.
      const recent: any = await client.callTool({ name: 'recent_changes', arguments: { resources: ['payments'], since: '1970-01-01T00:00:00Z', limit: 50, fields: ['status'] } });
      expect(recent.structuredContent.data.map((item: { id: string }) => item.id).sort()).toEqual(all);
      expect(recent.structuredContent.next_cursor).toBeUndefined();
      expect(recent.structuredContent.hint).toBeUndefined();
    });
  });

  describe('hostile arguments', () => {
    const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

    it('refuses arguments nested 20,000 deep: invalid params on /mcp, 422 on /tools/call', async () => {
      const onMcp = await rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_records","arguments":${deep(20_000)}}}`);
      expect(onMcp.status).toBe(200);
      expect(onMcp.body).toMatchObject({ id: 3, error: { code: -32602, message: expect.stringMatching(/nested deeper than 64/) } });
      const response = await fetch(`${mcp.base}/tools/call`, {
        method: 'POST',
        headers: { ...credentials(demo.mcp_token, demo.tenant.slug), 'content-type': 'application/json' },
        body: `{"name":"list_records","arguments":${deep(20_000)}}`,
      });
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({ detail_key: 'errors.common.validation.invalid_input', code: 'max_depth' });
    });

    it('answers a message whose id is no string or number with -32600 and id null, never echoing the id, however deep', async () => {
      // A 20,000-level array as id: the answer's JSON.stringify overflowed the stack, the connection closed with no answer.
      const deepId = await rpc(`{"jsonrpc":"2.0","id":${'['.repeat(20_000)}${']'.repeat(20_000)},"method":"ping"}`);
      // An object as id beside arguments this server refuses itself: it echoed the id with -32602.
      const objectId = await rpc({ jsonrpc: '2.0', id: { a: 1 }, method: 'tools/call', params: { name: 'summarise', arguments: { area: 'x\u0000' } } });
      const inBatch = await rpc([
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: [[1]], method: 'tools/call', params: { name: 'summarise', arguments: { area: 'finance' } } },
      ]);
      for (const answer of [deepId, objectId, inBatch]) {
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a message id must be a string or a number.' } });
      }
      expect((await rpc({ jsonrpc: '2.0', id: 'next', method: 'ping' })).body).toEqual({ jsonrpc: '2.0', id: 'next', result: {} });
    });

    it.each(['__proto__', 'constructor'])('refuses an argument named %s, which a strict schema would take for a known one: invalid params on /mcp, 422 on /tools/call', async (name) => {
      const args = `{"limit":2,"${name}":{"polluted":true}}`;
      const onMcp = await rpc(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search_records","arguments":${args}}}`);
      expect(onMcp.body).toMatchObject({ id: 5, error: { code: -32602, message: `Invalid params: unknown argument ${name}.`, data: { field: `arguments.${name}` } } });
      const response = await fetch(`${mcp.base}/tools/call`, {
        method: 'POST',
        headers: { ...credentials(demo.mcp_token, demo.tenant.slug), 'content-type': 'application/json' },
        body: `{"name":"list_records","arguments":{"resource":"invoices","${name}":1}}`,
      });
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({ detail_key: 'errors.mcp.invalid_request', field: `arguments.${name}` });
    });

    const freeText = [
      { name: 'search_records', arguments: { query: 'a\u0000b' }, argument: 'query' },
      ...READ_RESOURCES.map((resource) => ({ name: `search_${resource.name}`, arguments: { query: 'a\u0000b' }, argument: 'query' })),
      { name: 'list_records', arguments: { resource: 'invoices', cursor: 'x\u0000' }, argument: 'cursor' },
    ];

    it.each(freeText)('refuses U+0000 in $name, naming the argument, on /mcp and /tools/call', async ({ name, arguments: args, argument }) => {
      const onMcp = await rpc({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name, arguments: args } });
      expect(onMcp.body).toMatchObject({ id: 4, error: { code: -32602, message: `Invalid params: arguments.${argument} contains the character U+0000, which no record can hold.` } });
      const called = await shortcut(mcp.base, '/tools/call', credentials(demo.mcp_token, demo.tenant.slug), { name, arguments: args });
      expect(called.status).toBe(422);
      expect(called.body).toMatchObject({ field: `arguments.${argument}`, code: 'invalid_character' });
    });

    it('refuses a body that is not UTF-8, never reading a bad byte as U+FFFD: parse error on /mcp, 422 on /tools/call', async () => {
      const latin1 = (text: string) => Buffer.from(text, 'latin1');
      const onMcp = await fetch(`${mcp.base}/mcp`, {
        method: 'POST',
        headers: { ...credentials(demo.mcp_token, demo.tenant.slug), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: latin1('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"search_records","arguments":{"query":"Müller"}}}'),
      });
      expect(onMcp.status).toBe(400);
      expect(await onMcp.json()).toMatchObject({ id: null, error: { code: -32700, message: 'Parse error: the body is not JSON in UTF-8.' } });
      const called = await fetch(`${mcp.base}/tools/call`, {
        method: 'POST',
        headers: { ...credentials(demo.mcp_token, demo.tenant.slug), 'content-type': 'application/json' },
        body: latin1('{"name":"search_records","arguments":{"query":"Müller"}}'),
      });
      expect(called.status).toBe(422);
      expect(await called.json()).toMatchObject({ detail_key: 'errors.common.validation.malformed_json', detail: expect.stringMatching(/not valid UTF-8/) });
    });

    it('keeps the refusal of a huge argument list short: one element past the bound, not one line per element', async () => {
      const called = await shortcut(mcp.base, '/tools/call', credentials(demo.mcp_token, demo.tenant.slug), {
        name: 'search_records',
        arguments: { query: 'a', resources: Array.from({ length: 100_000 }, () => 1) },
      });
      expect(called.status).toBe(200);
      expect(called.body).toMatchObject({ isError: true });
      expect(text(called.body).length).toBeLessThan(2_000);
      const repeated = await shortcut(mcp.base, '/tools/call', credentials(demo.mcp_token, demo.tenant.slug), {
        name: 'search_records',
        arguments: { query: 'a', resources: [...Array.from({ length: 10_000 }, () => 'tickets'), 'invoices'], fields: ['nope'] },
      });
      expect(repeated.body).toMatchObject({ isError: true });
      expect(text(repeated.body).length).toBeLessThan(2_000);
    });

    it('refuses more argument names than any tool takes, or one longer than any it takes, before the SDK lists them all', async () => {
      const many = Object.fromEntries(Array.from({ length: 40_000 }, (_, index) => [`unknown_${index}`, 1]));
      const onMcp = await rpc({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'list_records', arguments: { resource: 'invoices', ...many } } });
      expect(onMcp.status).toBe(200);
      expect(onMcp.body).toMatchObject({ id: 9, error: { code: -32602, message: 'Invalid params: 40001 arguments, where a tool takes at most 16.', data: { field: 'arguments' } } });
      const long = 'x'.repeat(200_000);
      const called = await shortcut(mcp.base, '/tools/call', credentials(demo.mcp_token, demo.tenant.slug), { name: 'list_records', arguments: { resource: 'invoices', [long]: 1 } });
      expect(called.status).toBe(422);
      expect(called.body).toMatchObject({ detail_key: 'errors.mcp.invalid_request', field: `arguments.${'x'.repeat(64)}` });
      expect(JSON.stringify(called.body).length).toBeLessThan(2_000);
    });

    it('refuses a query of more words than a search reads, rather than dropping the last ones', async () => {
      const nine = await client.callTool({ name: 'search_records', arguments: { query: 'one two three four five six seven eight nine' } });
      expect(nine.isError).toBe(true);
      expect(text(nine)).toMatch(/At most 8 words/);
      const eight = await client.callTool({ name: 'search_records', arguments: { query: '  one two three four five six seven eight  ' } });
      expect(eight.isError).toBeFalsy();
    });

    it('logs and counts a call its arguments refuse, as refused, though the SDK answers it; a call the SDK never runs, not at all', async () => {
      const refusedCalls = async () => Number(/mcp_tool_calls_total\{tool="list_records",outcome="refused"\} (\d+)/.exec(await (await fetch(`${mcp.base}/metrics`)).text())?.[1] ?? 0);
      const before = await refusedCalls();
      const answer = await client.callTool({ name: 'list_records', arguments: { resource: 'tickets', limit: 51 } });
      expect(answer.isError).toBe(true);
      expect(await refusedCalls()).toBe(before + 1);
      const call = (args: unknown, id = 21) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_records', arguments: args } });
      // Arguments that are no object: a protocol error of the SDK, not a refused call.
      expect((await rpc(call([1]))).body).toMatchObject({ id: 21, error: { code: -32602 } });
      // A batch another of its messages has refused runs nothing.
      expect((await rpc([call({ limit: 51 }), call({ constructor: 1 }, 22)])).body).toEqual(expect.arrayContaining([expect.objectContaining({ id: 22, error: expect.objectContaining({ code: -32602 }) })]));
      // A message without jsonrpc: 2.0 is no request the SDK runs.
      expect((await rpc({ id: 23, method: 'tools/call', params: { name: 'list_records', arguments: { limit: 51 } } })).body).toMatchObject({ error: { code: -32600 } });
      // Nor one the SDK refuses as a request: no Accept for its answer (406), or a 2026-07-28 request without _meta (400).
      const noAccept = await fetch(`${mcp.base}/mcp`, {
        method: 'POST',
        headers: { ...credentials(demo.mcp_token, demo.tenant.slug), 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify(call({ limit: 51 }, 24)),
      });
      expect(noAccept.status).toBe(406);
      const withoutMeta = await rpc(call({ limit: 51 }, 25), { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'list_records' });
      expect(withoutMeta.status).toBe(400);
      expect(await refusedCalls()).toBe(before + 1);
    });

    it('refuses initialize params without protocolVersion, capabilities or clientInfo as invalid params, not an internal error', async () => {
      for (const params of [{}, { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'x', version: '1' } }, { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x' } }]) {
        const answer = await rpc({ jsonrpc: '2.0', id: 11, method: 'initialize', params });
        expect(answer.body).toMatchObject({ id: 11, error: { code: -32602, message: expect.stringMatching(/initialize takes protocolVersion/) } });
      }
    });

    it('refuses a tools/list cursor that is no string as invalid params, not an internal error, in either revision', async () => {
      const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
      const refused = { code: -32602, message: 'Invalid params: cursor must be a string, the nextCursor of an earlier tools/list.', data: { field: 'cursor' } };
      for (const cursor of [{}, 5, ['a']]) {
        // -32603 with the SDK's schema error as its message, before.
        expect((await rpc({ jsonrpc: '2.0', id: 12, method: 'tools/list', params: { cursor } })).body).toEqual({ jsonrpc: '2.0', id: 12, error: refused });
        const modern = await rpc({ jsonrpc: '2.0', id: 13, method: 'tools/list', params: { cursor, _meta: meta } }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
        expect(modern.body).toEqual({ jsonrpc: '2.0', id: 13, error: refused });
      }
      for (const cursor of ['any', null]) expect((await rpc({ jsonrpc: '2.0', id: 14, method: 'tools/list', params: { cursor } })).body.result.tools.length).toBeGreaterThan(0);
    });

    it('refuses an unpaired surrogate in a search, naming the argument, on /mcp and /tools/call', async () => {
      const params = { name: 'search_records', arguments: { query: 'a\ud800' } };
      const onMcp = await rpc({ jsonrpc: '2.0', id: 5, method: 'tools/call', params });
      expect(onMcp.body).toMatchObject({
        id: 5,
        error: { code: -32602, message: 'Invalid params: arguments.query contains an unpaired UTF-16 surrogate (U+D800-U+DFFF), which no record can hold.' },
      });
      const called = await shortcut(mcp.base, '/tools/call', credentials(demo.mcp_token, demo.tenant.slug), params);
      expect(called.status).toBe(422);
      expect(called.body).toMatchObject({ field: 'arguments.query', code: 'unpaired_surrogate' });
    });
  });

  describe("a feature's summary", () => {
    const catalog = (summaries: Awaited<ReturnType<typeof loadAreaSummaries>>) =>
      new ToolCatalog({ resources: [], summaries }, mcp.handle.context.get(ResourceReader), mcp.handle.context.get(TenantData));

    it('is refused at start when two features summarise one area: the second had silently answered for the first', async () => {
      const [finance] = await loadAreaSummaries();
      expect(() => catalog([finance, { ...finance, title: 'Another' }])).toThrow(`Two features summarise the area ${finance.area}`);
    });

    it("is described, member by member, in summarise's output schema: the compact tool's was open, and how to read a member was hidden", async () => {
      const listed = await shortcut(mcp.base, '/tools/list', credentials(demo.mcp_token, demo.tenant.slug));
      const summarise = listed.body!.tools.find((tool: any) => tool.name === 'summarise');
      expect(summarise.outputSchema.properties.invoices_by_status.description).toMatch(/counts as issued here, and as overdue in overdue_count/);
      expect(summarise.outputSchema.properties.invoices_by_currency.description).toMatch(/Never add amounts of different currencies/);
      expect(summarise.outputSchema.required ?? []).toEqual([]);
      const answer: any = await client.callTool({ name: 'summarise', arguments: { area: 'finance' } });
      expect(answer.isError).toBeFalsy();
      expect(Object.keys(answer.structuredContent).sort()).toEqual(['invoices_by_currency', 'invoices_by_status']);
    });

    it('is refused at start when two summaries name a member alike: the one schema of summarise would describe one of them wrongly', async () => {
      const [finance, fleet] = await loadAreaSummaries();
      expect(() => catalog([finance, { ...fleet, output: finance.output }])).toThrow('Two summaries have a member invoices_by_currency');
    });

    it('fails, rather than answer, when it is larger than a tool answer (one grouping by an open-ended member answered 11 MB)', async () => {
      const [finance] = await loadAreaSummaries();
      const names = Object.fromEntries(Array.from({ length: 1000 }, (_, index) => [`name ${index}`, index]));
      const summarise = catalog([{ ...finance, compute: async () => ({ by_name: names }) }]).resourceTool(`summarise_${finance.area}`)!;
      await expect(summarise.run(demo.tenant.id, {})).rejects.toThrow(`The ${finance.area} summary is`);
      const fits = catalog([finance]).resourceTool(`summarise_${finance.area}`)!;
      expect(Buffer.byteLength(JSON.stringify(await fits.run(demo.tenant.id, {})))).toBeLessThan(9000);
    });
  });

  it('marks every 2026-07-28 result complete (resultType), as the revision asks', async () => {
    const headers = credentials(demo.mcp_token, demo.tenant.slug);
    expect((await shortcut(mcp.base, '/tools/list', headers)).body).toMatchObject({ resultType: 'complete', ttlMs: expect.any(Number), cacheScope: 'private' });
    expect((await shortcut(mcp.base, '/tools/call', headers, { name: 'summarise', arguments: { area: 'hr' } })).body).toMatchObject({ resultType: 'complete' });
  });

  describe('the 2026-07-28 error codes, answered through the front that checks auth and bodies', () => {
    const modern = (method: string, version: string, params: Record<string, unknown> = {}) => ({
      jsonrpc: '2.0',
      id: 7,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': version,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });

    it('answers -32022 with the revisions it serves for one it does not, in either form of request', async () => {
      const supported = ['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS];
      const answer = await rpc(modern('tools/list', '2099-01-01'), { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ id: 7, error: { code: -32022, data: { supported, requested: '2099-01-01' } } });
      // Without the 2026-07-28 envelope: the SDK asked for its _meta instead.
      const plain = await rpc({ jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-protocol-version': '2099-01-01' });
      expect(plain.status).toBe(400);
      expect(plain.body).toEqual({
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32022, message: `Unsupported protocol version: 2099-01-01 (supported versions: ${supported.join(', ')})`, data: { supported, requested: '2099-01-01' } },
      });
    });

    it('answers -32020 when the headers and the body disagree on the revision or the method', async () => {
      const revision = await rpc(modern('tools/list', '2026-07-28'), { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/list' });
      expect(revision.body).toMatchObject({ id: 7, error: { code: -32020, data: { mismatch: { header: '2025-11-25' } } } });
      const method = await rpc(modern('tools/call', '2026-07-28', { name: 'summarise', arguments: { area: 'hr' } }), {
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      });
      expect(method.body).toMatchObject({ id: 7, error: { code: -32020, data: { mismatch: { header: 'tools/list' } } } });
    });

    it('refuses a 2026-07-28 batch whole before anything parses it (that revision has no batches), whatever else is wrong with it', async () => {
      // 20,000 levels deep: the SDK's parse of it answered 500.
      const deepBatch = await rpc(`${'['.repeat(20_000)}${']'.repeat(20_000)}`, { 'mcp-protocol-version': '2026-07-28' });
      expect(deepBatch.status).toBe(400);
      expect(deepBatch.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/batches are not supported/) } });
      const withNul = await rpc([{ ...modern('tools/call', '2026-07-28', { name: 'search_records', arguments: { query: 'a\u0000' } }), id: 9 }], { 'mcp-protocol-version': '2026-07-28' });
      expect(withNul.status).toBe(400);
      expect(withNul.body).toMatchObject({ id: null, error: { code: -32600 } });
      for (const headers of [{}, { 'X-MCP-Toolsets': 'payroll' }] as Record<string, string>[]) {
        const answer = await rpc([modern('tools/list', '2026-07-28'), { ...modern('tools/list', '2026-07-28'), id: 8 }], { 'mcp-protocol-version': '2026-07-28', ...headers });
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, message: expect.stringMatching(/batch/i) } });
      }
    });

    it('leaves an initialize in the 2026-07-28 form to the SDK, which has no such method there (-32601), whatever its params', async () => {
      const answer = await rpc(modern('initialize', '2026-07-28'), { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'initialize' });
      expect(answer.body).toMatchObject({ id: 7, error: { code: -32601 } });
    });

    it('serves a well-formed raw 2026-07-28 request, so the refusals above are about the fault alone', async () => {
      const answer = await rpc(modern('tools/list', '2026-07-28'), { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
      expect(answer.status).toBe(200);
      expect(answer.body.result).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
    });
  });

  it('names protocolVersion in the handshake, the newest revision served', async () => {
    const body = (await (await fetch(`${mcp.base}/handshake`)).json()) as any;
    expect(body.protocolVersion).toBe('2026-07-28');
    expect(body.protocolVersions[0]).toBe(body.protocolVersion);
  });

  it('counts tool calls by tool and outcome, and times MCP requests in the HTTP histogram', async () => {
    await client.callTool({ name: 'summarise', arguments: { area: 'fleet' } });
    const metrics = await (await fetch(`${mcp.base}/metrics`)).text();
    expect(metrics).toMatch(/mcp_tool_calls_total\{tool="summarise",outcome="ok"\} [1-9]/);
    expect(metrics).toMatch(/http_request_duration_seconds_count\{method="POST",route="\/mcp",status="200"\} [1-9]/);
  });
});
