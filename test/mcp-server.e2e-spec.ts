import { request } from 'node:http';
import { once } from 'node:events';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Logger } from '@nestjs/common';
import { jest } from '@jest/globals';
import { Redis } from 'ioredis';
import pg from 'pg';
import { getMetadataArgsStorage } from 'typeorm';
import type { Client } from '@modelcontextprotocol/client';
import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { FEATURES, READ_RESOURCES } from '../src/app/features.js';
import { COMPACT_TOOL_NAMES } from '../src/mcp/tool-names.js';
import { runCli } from './support/cli.js';
import { inOneWindow } from './support/rate-limit-clock.js';
import { waitFor } from './support/wait-for.js';
import { credentials, legacyClient, modernClient, shortcut, startMcp, type TestMcp } from './support/mcp.js';

interface Demo {
  tenant: { id: string; slug: string };
  keys: { all: string };
  user: { id: string };
  mcp_token: string;
}

/** The resource tools a token grants: list, get, search and recent per resource, and one summary per area that has one. */
const RESOURCE_TOOLS = [
  ...READ_RESOURCES.flatMap((resource) => ['list', 'get', 'search', 'recent'].map((verb) => `${verb}_${resource.name}`)),
  ...FEATURES.filter((feature) => feature.summary).map((feature) => `summarise_${feature.name}`),
];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** The text of a tool result's first content block. */
const text = (result: any): string => result.content[0].text as string;

/**
 * The agent-tool server (spec 4 "Agent-tool server", 5.9, 8) against the running server, real
 * PostgreSQL and Redis, with the two clients hosts ship: the SDK v2 client pinned to
 * 2026-07-28 and the 1.x client speaking 2025-11-25.
 */
describe('agent-tool server (e2e)', () => {
  let mcp: TestMcp;
  let db: pg.Client;
  let a: Demo;
  let b: Demo;
  let modern: Client;
  let legacy: LegacyClient;

  beforeAll(async () => {
    db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    a = (await runCli('seed:demo', '--records', '4')).json as unknown as Demo;
    b = (await runCli('seed:demo', '--records', '4')).json as unknown as Demo;
    mcp = await startMcp();
    modern = await modernClient(mcp.base, a.mcp_token, a.tenant.slug);
    legacy = await legacyClient(mcp.base, a.mcp_token, a.tenant.id);
  });
  afterAll(async () => {
    await modern?.close();
    await legacy?.close();
    await mcp?.close();
    await db?.end();
  });

  /** A new person of company A with `permissions`, and a token naming `tools`. */
  async function personWithToken(permissions: string, tools: string): Promise<{ userId: string; tokenId: string; token: string }> {
    const userId = (await runCli('user:create', '--tenant', a.tenant.id, '--email', `p${Date.now()}${Math.random()}@example.test`, '--permissions', permissions)).json
      .id as string;
    const created = (await runCli('mcp-token:create', '--tenant', a.tenant.id, '--user', userId, '--tools', tools)).json as { id: string; token: string };
    return { userId, tokenId: created.id, token: created.token };
  }

  describe('transport', () => {
    it('closes the connection after a body over 1 MiB, whose unread rest would otherwise be read as the next request', async () => {
      const { port } = new URL(mcp.base);
      /** Sends a request's head and `body` on a new socket; answers the socket, its head once it came, and its close. */
      const post = async (path: string, accept: string, contentLength: number, body: string) => {
        const socket = connect(Number(port), '127.0.0.1');
        await once(socket, 'connect');
        let answer = '';
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
        const closed = once(socket, 'close');
        const headers = Object.entries({ ...credentials(a.mcp_token, a.tenant.slug), 'Content-Type': 'application/json', Accept: accept })
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('');
        socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\n${headers}Content-Length: ${contentLength}\r\n\r\n${body}`);
        const head = await waitFor(async () => (answer.includes('\r\n\r\n') ? answer : undefined), 10_000, `the answer to ${path}`);
        return { socket, head, closed };
      };
      for (const [path, accept] of [['/tools/call', 'application/json'], ['/mcp', 'application/json, text/event-stream']]) {
        // Declared 2 MiB, sent just past 1 MiB and then held: the server answers without the rest.
        const { head, closed } = await post(path, accept, 2 * 1024 * 1024, `{"pad":"${'x'.repeat(1024 * 1024 + 16)}`);
        expect(head).toMatch(/^HTTP\/1\.1 413 /);
        expect(head).toMatch(/\r\nConnection: close\r\n/i);
        // Before: "Connection: keep-alive", and the next request on the socket waited on the rest of this body.
        await closed;
      }
      expect((await shortcut(mcp.base, '/tools/list', credentials(a.mcp_token, a.tenant.slug))).status).toBe(200);
      // A refusal of a body read whole keeps its connection (Node marks that request destroyed too).
      const { socket, head } = await post('/tools/call', 'application/json', 5, '{nope');
      expect(head).toMatch(/^HTTP\/1\.1 422 /);
      expect(head).toMatch(/\r\nConnection: keep-alive\r\n/i);
      socket.destroy();
    });

    it('sends the REST API\'s security and cache headers on every answer: data that nothing may sniff, load, frame or keep', async () => {
      const answers = [
        await fetch(`${mcp.base}/handshake`),
        await fetch(`${mcp.base}/tools/call`, { method: 'POST', headers: { ...credentials(a.mcp_token, a.tenant.slug), 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'summarise_finance', arguments: {} }) }),
        await fetch(`${mcp.base}/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: '{}' }),
        await fetch(`${mcp.base}/nowhere`),
        // A 2025-era call, answered as an event stream (for which the SDK sets a cache header of its own).
        await fetch(`${mcp.base}/mcp`, {
          method: 'POST',
          headers: { ...credentials(a.mcp_token, a.tenant.slug), 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'summarise_finance', arguments: {} } }),
        }),
      ];
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 401, 404, 200]);
      expect(answers[4].headers.get('content-type')).toBe('text/event-stream');
      for (const answer of answers) {
        expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
        expect(answer.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
        expect(answer.headers.get('x-frame-options')).toBe('SAMEORIGIN');
        expect(answer.headers.get('cache-control')).toBe('no-store');
      }
    });

    it('answers a transfer coding other than chunked once, 501, and logs no error for it', async () => {
      const { port } = new URL(mcp.base);
      const socket = connect(Number(port), '127.0.0.1');
      await once(socket, 'connect');
      let wire = '';
      socket.on('data', (chunk: Buffer) => (wire += chunk.toString('latin1')));
      const closed = once(socket, 'close');
      const errors = jest.spyOn(Logger.prototype, 'error');
      const headers = Object.entries(credentials(a.mcp_token, a.tenant.slug))
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.write(`POST /tools/list HTTP/1.1\r\nHost: localhost\r\n${headers}Content-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\n`);
      await closed;
      // Before: the 501, then a 400 malformed_request on the same connection.
      expect(wire.match(/HTTP\/1\.1 \d{3} /g)).toEqual(['HTTP/1.1 501 ']);
      expect(wire).toContain('"detail_key":"errors.common.transfer_coding_not_implemented"');
      // Before: logged as an unexpected failure, with its stack.
      expect(errors).not.toHaveBeenCalled();
      errors.mockRestore();
    });

    it('reads a POST /mcp body as it comes, UTF-8 and uncompressed: another charset or a Content-Encoding is a 415, never a misread body', async () => {
      const call = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'summarise_finance', arguments: {} } });
      const post = (headers: Record<string, string>, body: string | Buffer) =>
        fetch(`${mcp.base}/mcp`, {
          method: 'POST',
          headers: { ...credentials(a.mcp_token, a.tenant.slug), 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18', ...headers },
          body,
        });
      for (const [headers, body] of [
        // Before: run as if it were plain (200 with the tool's result)…
        [{ 'Content-Encoding': 'gzip' }, call],
        // …refused as not JSON (400, -32700) when it really was gzip…
        [{ 'Content-Encoding': 'gzip' }, gzipSync(call)],
        // …and read as UTF-8 whatever charset it named.
        [{ 'Content-Type': 'application/json; charset=latin1' }, call],
      ] as const) {
        const refused = await post(headers, body);
        expect(refused.status).toBe(415);
        expect(await refused.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: expect.stringMatching(/^Unsupported Media Type: .*UTF-8 JSON/) } });
      }
      // The SDK's own refusal of a Content-Type, which these match.
      const untyped = await post({ 'Content-Type': 'text/plain' }, call);
      expect(untyped.status).toBe(415);
      expect(((await untyped.json()) as any).error.code).toBe(-32000);
      for (const headers of [{ 'Content-Type': 'application/json; charset=utf-8' }, { 'Content-Encoding': 'identity' }] as Record<string, string>[]) expect((await post(headers, call)).status).toBe(200);
    });

    it('answers GET /handshake without a token: protocol versions, capabilities, server info', async () => {
      const response = await fetch(`${mcp.base}/handshake`);
      expect(response.status).toBe(200);
      const body = (await response.json()) as any;
      expect(body.protocolVersions).toEqual(expect.arrayContaining(['2026-07-28', '2025-11-25', '2025-06-18']));
      expect(body.capabilities).toEqual({ tools: { listChanged: false } });
      expect(body.serverInfo).toMatchObject({ name: 'integrations-api', version: expect.any(String) });
    });

    it.each(['GET', 'DELETE'])('answers %s /mcp with 405 and Allow: POST, OPTIONS, token or not', async (method) => {
      for (const headers of [{}, credentials(a.mcp_token, a.tenant.slug)]) {
        const response = await fetch(`${mcp.base}/mcp`, { method, headers });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('POST, OPTIONS');
        expect(((await response.json()) as any).detail_key).toBe('errors.common.method_not_allowed');
      }
    });

    it('names HEAD among the methods of a GET route it refuses another method on', async () => {
      const response = await fetch(`${mcp.base}/handshake`, { method: 'POST' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect((await fetch(`${mcp.base}/handshake`, { method: 'HEAD' })).status).toBe(200);
    });

    it('refuses a foreign Origin with 403 and accepts a localhost one (DNS-rebinding protection)', async () => {
      const refused = await fetch(`${mcp.base}/handshake`, { headers: { Origin: 'https://evil.example' } });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as any).detail_key).toBe('errors.mcp.origin_not_allowed');
      const listed = await shortcut(mcp.base, '/tools/list', { ...credentials(a.mcp_token, a.tenant.slug), Origin: 'https://evil.example' });
      expect(listed.status).toBe(403);
      expect((await fetch(`${mcp.base}/handshake`, { headers: { Origin: 'http://localhost:6274' } })).status).toBe(200);
    });

    it('answers a request target that is no URL (`//[`) with 404 and keeps serving', async () => {
      const { port } = new URL(mcp.base);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.end('GET //[ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'));
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString()));
        socket.on('end', () => resolve(received));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 404 /);
      expect(answer).toContain('errors.common.route_not_found');
      expect((await fetch(`${mcp.base}/handshake`)).status).toBe(200);
    });

    it('answers a browser preflight from an accepted origin with what a tool call sends, and lets that page read the answer', async () => {
      const origin = 'http://localhost:6274';
      const preflight = await fetch(`${mcp.base}/mcp`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type,x-oh-tenant,mcp-protocol-version' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
      expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
      const allowed = preflight.headers.get('access-control-allow-headers')!.toLowerCase().split(/,\s*/);
      expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'x-oh-tenant', 'mcp-protocol-version', 'x-mcp-tools', 'x-mcp-toolsets']));
      expect(preflight.headers.get('vary')).toMatch(/Origin/);
      const foreign = await fetch(`${mcp.base}/mcp`, { method: 'OPTIONS', headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' } });
      expect(foreign.status).toBe(403);
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
      const listed = await shortcut(mcp.base, '/tools/list', { ...credentials(a.mcp_token, a.tenant.slug), Origin: origin });
      expect(listed.status).toBe(200);
      expect(listed.headers.get('access-control-allow-origin')).toBe(origin);
      expect(listed.headers.get('access-control-expose-headers')).toMatch(/RateLimit/);
      const unauthenticated = await shortcut(mcp.base, '/tools/list', { Origin: origin });
      expect(unauthenticated.status).toBe(401);
      expect(unauthenticated.headers.get('access-control-allow-origin')).toBe(origin);
      // Without an Origin (every non-browser client) nothing is granted across origins.
      const plain = await shortcut(mcp.base, '/tools/list', credentials(a.mcp_token, a.tenant.slug));
      expect(plain.headers.get('access-control-allow-origin')).toBeNull();
      // Only web pages, and never the metrics.
      for (const other of ['ftp://localhost', 'chrome-extension://localhost']) {
        expect((await fetch(`${mcp.base}/handshake`, { headers: { Origin: other } })).status).toBe(403);
      }
      const metrics = await fetch(`${mcp.base}/metrics`, { headers: { Origin: origin } });
      expect(metrics.status).toBe(200);
      expect(metrics.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('refuses an unsupported MCP-Protocol-Version with 400', async () => {
      const response = await fetch(`${mcp.base}/mcp`, {
        method: 'POST',
        headers: { ...credentials(a.mcp_token, a.tenant.slug), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '1999-01-01' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toMatch(/Unsupported protocol version: 1999-01-01/);
    });

    it('serves a 2025-06-18 client statelessly: initialize and tools/list in separate requests', async () => {
      const post = async (body: object) => {
        const response = await fetch(`${mcp.base}/mcp`, {
          method: 'POST',
          headers: { ...credentials(a.mcp_token, a.tenant.slug), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
          body: JSON.stringify(body),
        });
        expect(response.status).toBe(200);
        const raw = await response.text();
        return JSON.parse(raw.startsWith('{') ? raw : /^data: (.*)$/m.exec(raw)![1]);
      };
      const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      expect(init.result.protocolVersion).toBe('2025-06-18');
      expect(init.result.serverInfo.name).toBe('integrations-api');
      // Every area of the registry named (a new feature's too), and search described as its tool is: it claimed names and e-mails.
      for (const area of new Set(READ_RESOURCES.map((resource) => resource.area))) expect(init.result.instructions).toContain(area);
      expect(init.result.instructions).toContain('search_records to find records by the members its description names');
      expect((await post({ jsonrpc: '2.0', id: 2, method: 'ping' })).result).toEqual({});
      const list = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
      expect(list.result.tools.map((tool: { name: string }) => tool.name)).toEqual(COMPACT_TOOL_NAMES);
    });

    it('negotiates 2025-11-25 with the 1.x client and 2026-07-28 with the pinned v2 client', () => {
      expect((legacy.transport as { protocolVersion?: string }).protocolVersion).toBe('2025-11-25');
      expect(modern.getNegotiatedProtocolVersion?.() ?? '2026-07-28').toBe('2026-07-28');
    });
  });

  describe('tools', () => {
    it('lists the compact tools in a stable order with a cache hint, titles, descriptions, schemas and read-only annotations', async () => {
      const first = await modern.listTools();
      const again = await modern.listTools();
      expect(again.tools).toEqual(first.tools);
      expect((first as { ttlMs?: number }).ttlMs).toBeGreaterThan(0);
      expect(first.tools.map((tool) => tool.name)).toEqual(COMPACT_TOOL_NAMES);
      for (const tool of first.tools) {
        expect(tool.title).toBeTruthy();
        expect(tool.description!.length).toBeGreaterThan(40);
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.outputSchema?.type).toBe('object');
        expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      }
      expect((await legacy.listTools()).tools.map((tool) => tool.name)).toEqual(first.tools.map((tool) => tool.name));
    });

    it('pages a list lean: structuredContent plus the same JSON as text, no nulls, next_cursor with a hint, and the next page continues', async () => {
      const first: any = await modern.callTool({ name: 'list_vehicles', arguments: { limit: 2 } });
      expect(first.isError).toBeFalsy();
      expect(JSON.parse(text(first))).toEqual(first.structuredContent);
      expect(first.structuredContent.data).toHaveLength(2);
      expect(text(first)).not.toContain('null');
      expect(first.structuredContent.next_cursor).toEqual(expect.any(String));
      expect(first.structuredContent.hint).toMatch(/call this tool again .* cursor/);
      const second: any = await legacy.callTool({ name: 'list_vehicles', arguments: { limit: 2, cursor: first.structuredContent.next_cursor } });
      const ids = (page: any) => page.structuredContent.data.map((item: { id: string }) => item.id);
      expect(ids(second)).toHaveLength(2);
      expect(ids(second).some((id: string) => ids(first).includes(id))).toBe(false);
      const rest: any = await modern.callTool({ name: 'list_vehicles', arguments: { limit: 50 } });
      expect(rest.structuredContent.next_cursor).toBeUndefined();
      expect(rest.structuredContent.hint).toBeUndefined();
      expect(rest.structuredContent.data).toHaveLength(4);
    });

    it('gets, searches and shows recent changes with the fields REST shows', async () => {
      const { rows } = await db.query('SELECT id, registration FROM vehicles WHERE tenant_id = $1 ORDER BY created_at DESC LIMIT 1', [a.tenant.id]);
      const got: any = await legacy.callTool({ name: 'get_vehicles', arguments: { id: rows[0].id } });
      expect(got.structuredContent).toMatchObject({ id: rows[0].id, registration: rows[0].registration, status: expect.any(String) });

      const found: any = await modern.callTool({ name: 'search_vehicles', arguments: { query: rows[0].registration.slice(1, 5).toLowerCase() } });
      expect(found.structuredContent.data.map((item: { id: string }) => item.id)).toContain(rows[0].id);

      const [person] = (await db.query('SELECT id, first_name, last_name FROM employees WHERE tenant_id = $1 LIMIT 1', [a.tenant.id])).rows;
      const byName: any = await legacy.callTool({ name: 'search_employees', arguments: { query: `${person.first_name} ${person.last_name}`.toUpperCase() } });
      expect(byName.structuredContent.data.map((item: { id: string }) => item.id)).toContain(person.id);
      const wildcard: any = await modern.callTool({ name: 'search_employees', arguments: { query: '%' } });
      expect(wildcard.structuredContent.data).toEqual([]);

      const since = new Date(Date.now() - 60_000).toISOString();
      await db.query('UPDATE vehicles SET updated_at = now() WHERE id = $1', [rows[0].id]);
      const recent: any = await modern.callTool({ name: 'recent_vehicles', arguments: { since } });
      expect(recent.structuredContent.data.map((item: { id: string }) => item.id)).toEqual([rows[0].id]);
    });

    it('answers the area summaries', async () => {
      const finance: any = await modern.callTool({ name: 'summarise_finance', arguments: {} });
      const { rows } = await db.query(
        `SELECT currency, sum(balance_minor)::bigint AS open FROM invoices WHERE tenant_id = $1 AND status IN ('issued','partial','overdue') AND balance_minor > 0 GROUP BY currency`,
        [a.tenant.id],
      );
      for (const row of rows) {
        expect(finance.structuredContent.invoices_by_currency).toContainEqual(expect.objectContaining({ currency: row.currency, open_balance_minor: Number(row.open) }));
      }
      const fleet: any = await legacy.callTool({ name: 'summarise_fleet', arguments: {} });
      expect(Object.values(fleet.structuredContent.vehicles_by_status).reduce((sum: number, count) => sum + (count as number), 0)).toBe(4);
      for (const area of ['hr', 'support', 'documents']) {
        const summary: any = await modern.callTool({ name: `summarise_${area}`, arguments: {} });
        expect(summary.isError).toBeFalsy();
        expect(JSON.parse(text(summary))).toEqual(summary.structuredContent);
      }
    });

    it('answers a sum of balances past 2^53 − 1 exactly, as its digits, and the rest of the summary as before', async () => {
      const c = (await runCli('seed:demo', '--records', '3')).json as unknown as Demo;
      const client = await modernClient(mcp.base, c.mcp_token, c.tenant.slug);
      try {
        // Each invoice within the spec's exact integers, their sum not.
        await db.query(
          `UPDATE invoices SET status = 'issued', number = coalesce(number, 'BIG-' || id), issued_at = coalesce(issued_at, now()), voided_at = NULL,
                  currency = 'EUR', subtotal_minor = 9007199254740991, tax_minor = 0, total_minor = 9007199254740991, paid_minor = 0, balance_minor = 9007199254740991
            WHERE tenant_id = $1`,
          [c.tenant.id],
        );
        const { rows } = await db.query(`SELECT count(*)::int AS count, sum(balance_minor)::text AS open FROM invoices WHERE tenant_id = $1`, [c.tenant.id]);
        expect(rows[0].count).toBeGreaterThanOrEqual(2);
        const finance: any = await client.callTool({ name: 'summarise_finance', arguments: {} });
        expect(finance.isError).toBeFalsy();
        expect(finance.structuredContent.invoices_by_currency).toEqual([
          expect.objectContaining({ currency: 'EUR', open_count: rows[0].count, open_balance_minor: rows[0].open }),
        ]);
        expect(BigInt(rows[0].open)).toBe(BigInt(rows[0].count) * 9007199254740991n);
        expect(finance.structuredContent.invoices_by_status).toEqual({ issued: rows[0].count });
      } finally {
        await client.close();
      }
    });

    it.each([
      ['list_invoices', { limit: 'ten' }, /limit/],
      ['list_invoices', { limit: 500 }, /limit/],
      ['get_vehicles', { id: 'not-an-id' }, /id/],
      ['search_tickets', {}, /query/],
      ['recent_tickets', { since: '2026-05-01' }, /since/],
      ['list_bills', { colour: 'red' }, /colour/],
      ['list_bills', { cursor: 'garbage' }, /cursor/],
    ])('answers %s with %j as an isError result naming the argument', async (name, args, argument) => {
      for (const client of [modern, legacy] as const) {
        const result: any = await client.callTool({ name, arguments: args });
        expect(result.isError).toBe(true);
        expect(result.structuredContent).toBeUndefined();
        expect(text(result)).toMatch(argument);
      }
    });

    it('answers a missing record as an isError result', async () => {
      const result: any = await modern.callTool({ name: 'get_invoices', arguments: { id: '00000000-0000-4000-8000-000000000000' } });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/No invoice with id/);
    });

    it('answers an unknown tool with JSON-RPC error -32602, never data', async () => {
      await expect(modern.callTool({ name: 'drop_invoices', arguments: {} })).rejects.toMatchObject({ code: -32602 });
      await expect(legacy.callTool({ name: 'drop_invoices', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    });

    it.each(['constructor', 'toString', '__proto__'])('answers %s, a name every object has, as an unknown tool', async (name) => {
      await expect(modern.callTool({ name, arguments: {} })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining(`Tool ${name} not found`) });
    });
  });

  describe('authentication', () => {
    const expect401 = async (headers: Record<string, string>) => {
      for (const response of [
        await fetch(`${mcp.base}/mcp`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' }),
        await fetch(`${mcp.base}/tools/list`, { method: 'POST', headers }),
      ]) {
        expect(response.status).toBe(401);
        expect(response.headers.get('content-type')).toBe('application/problem+json');
        expect(response.headers.get('www-authenticate')).toBe('Bearer realm="mcp"');
        const body = (await response.json()) as any;
        expect(body).toMatchObject({ status: 401, detail_key: 'errors.mcp.unauthenticated', type: expect.stringMatching(/\/unauthorized$/) });
      }
    };

    it('refuses a missing, malformed or unknown token and an oh_live_ API key', async () => {
      await expect401({ 'X-OH-Tenant': a.tenant.slug });
      await expect401({ Authorization: 'Bearer nope', 'X-OH-Tenant': a.tenant.slug });
      await expect401(credentials(`${a.mcp_token.slice(0, -4)}AAAA`, a.tenant.slug));
      await expect401(credentials(`oht_abcdefghijkl_${'a'.repeat(43)}`, a.tenant.slug));
      await expect401(credentials(a.keys.all, a.tenant.slug));
    });

    it('refuses two Authorization headers, even when the first is valid, as the REST API does', async () => {
      const statusWith = (headers: string[]) =>
        new Promise<number>((resolve, reject) => {
          const { hostname, port } = new URL(mcp.base);
          request({ host: hostname, port, method: 'POST', path: '/tools/list', headers }, (response) => {
            response.resume();
            resolve(response.statusCode!);
          })
            .on('error', reject)
            .end();
        });
      const tenant = ['Host', 'localhost', 'X-OH-Tenant', a.tenant.slug];
      expect(await statusWith(['Authorization', `Bearer ${a.mcp_token}`, ...tenant])).toBe(200);
      expect(await statusWith(['Authorization', `Bearer ${a.mcp_token}`, 'authorization', 'Bearer oht_other', ...tenant])).toBe(401);
      expect(await statusWith(['Authorization', `Bearer ${a.mcp_token}`, 'Authorization', `Bearer ${a.mcp_token}`, ...tenant])).toBe(401);
    });

    it("refuses a missing, unknown or other company's tenant header; accepts the slug or the id, in either case", async () => {
      await expect401({ Authorization: `Bearer ${a.mcp_token}` });
      await expect401(credentials(a.mcp_token, 'no-such-company'));
      await expect401(credentials(a.mcp_token, b.tenant.slug));
      await expect401(credentials(a.mcp_token, b.tenant.id));
      expect((await shortcut(mcp.base, '/tools/list', credentials(a.mcp_token, a.tenant.id))).status).toBe(200);
      expect((await shortcut(mcp.base, '/tools/list', credentials(a.mcp_token, a.tenant.id.toUpperCase()))).status).toBe(200);
    });

    it('refuses a revoked token at once (mcp-token:revoke) and the token of a deactivated company', async () => {
      const person = await personWithToken('fin.invoices:read', 'list_invoices');
      expect((await shortcut(mcp.base, '/tools/list', credentials(person.token, a.tenant.slug))).status).toBe(200);
      const revoked = await runCli('mcp-token:revoke', '--token', person.tokenId);
      expect(revoked.code).toBe(0);
      expect(Object.keys(revoked.json)).toEqual(['id', 'revoked_at']);
      expect((await db.query('SELECT revoked_at FROM mcp_tokens WHERE id = $1', [person.tokenId])).rows[0].revoked_at).not.toBeNull();
      await expect401(credentials(person.token, a.tenant.slug));
      expect((await runCli('mcp-token:revoke', '--token', '00000000-0000-4000-8000-000000000000')).code).toBe(1);

      const other = (await runCli('tenant:create', '--name', 'Closing Down Ltd')).json as { id: string; slug: string };
      const user = (await runCli('user:create', '--tenant', other.id, '--email', 'x@closing.example', '--permissions', 'fin.invoices:read')).json.id as string;
      const token = (await runCli('mcp-token:create', '--tenant', other.id, '--user', user, '--tools', '*')).json.token as string;
      expect((await shortcut(mcp.base, '/tools/list', credentials(token, other.slug))).status).toBe(200);
      await runCli('tenant:deactivate', '--tenant', other.id);
      await expect401(credentials(token, other.slug));
    });
  });

  it("never returns another company's ids from any tool", async () => {
    // Every read resource's table, from the declarations, so a new feature's table is scanned too.
    const tables = READ_RESOURCES.map(({ entity }) => getMetadataArgsStorage().tables.find((table) => table.target === entity)!.name);
    expect(tables).toEqual(expect.arrayContaining(['invoices', 'vehicles', 'employees', 'tickets', 'documents']));
    const { rows } = await db.query(
      [...tables, 'customers'].map((table) => `SELECT id FROM ${table} WHERE tenant_id = $1`).join(' UNION ALL ') + ' UNION ALL SELECT $1::uuid',
      [b.tenant.id],
    );
    const foreign = new Set(rows.map((row) => row.id as string));
    expect(foreign.size).toBeGreaterThan(40);
    const seen = new Set<string>();
    const compactCalls = READ_RESOURCES.flatMap(({ name: resource }) => [
      { name: 'list_records', args: { resource, limit: 50 } },
      { name: 'get_record', args: { resource, id: [...foreign][0] } },
      { name: 'search_records', args: { query: 'a', resources: [resource], limit: 50 } },
      { name: 'recent_changes', args: { resources: [resource], limit: 50 } },
    ]);
    const calls = [
      ...RESOURCE_TOOLS.flatMap((name) => {
        const verb = name.split('_')[0];
        const argumentSets =
          verb === 'get' ? [{ id: [...foreign][0] }] : verb === 'search' ? [{ query: 'a', limit: 50 }, { query: '-', limit: 50 }] : verb === 'summarise' ? [{}] : [{ limit: 50 }];
        return argumentSets.map((args) => ({ name, args }));
      }),
      ...compactCalls,
      { name: 'search_records', args: { query: 'a', limit: 50 } },
      { name: 'recent_changes', args: { limit: 50 } },
    ];
    // A token for each hundred calls: they grow with the resources, past one token's 120 a minute
    // at a thirteenth (a review's new feature met the rate limit here).
    const everything = READ_RESOURCES.map((resource) => resource.scope.slice('int:'.length)).join(',');
    let client: Client | undefined;
    for (const [index, { name, args }] of calls.entries()) {
      if (index % 100 === 0) {
        await client?.close();
        client = await modernClient(mcp.base, (await personWithToken(everything, '*')).token, a.tenant.slug);
      }
      const verb = name.split('_')[0];
      {
        const result: any = await client!.callTool({ name, arguments: args as Record<string, unknown> });
        // A refused get names the id it was asked for; that echo is not data.
        const answer = JSON.stringify(result).replaceAll(String((args as { id?: string }).id), '');
        for (const id of answer.match(UUID) ?? []) {
          expect(foreign.has(id)).toBe(false);
          seen.add(id);
        }
        if (verb === 'get') expect(result.isError).toBe(true);
      }
    }
    await client?.close();
    expect(seen.size).toBeGreaterThan(40);
  });

  describe('permissions on every call', () => {
    it("lists exactly the token's tools the person may use, and refuses the others with -32602", async () => {
      const person = await personWithToken('fin.invoices:read', 'list_invoices,get_vehicles');
      const client = await modernClient(mcp.base, person.token, a.tenant.slug);
      try {
        const [listRecords] = (await client.listTools()).tools;
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['list_records']);
        expect((listRecords.inputSchema.properties as any).resource.enum).toEqual(['invoices']);
        expect((await client.callTool({ name: 'list_invoices', arguments: {} })).isError).toBeFalsy();
        expect((await client.callTool({ name: 'list_records', arguments: { resource: 'invoices' } })).isError).toBeFalsy();
        await expect(client.callTool({ name: 'get_record', arguments: { resource: 'vehicles', id: '00000000-0000-4000-8000-000000000000' } })).rejects.toMatchObject({ code: -32602 });
        // Named by the token, but the person lacks fm.vehicles:read; and not named by the token at all.
        await expect(client.callTool({ name: 'get_vehicles', arguments: { id: '00000000-0000-4000-8000-000000000000' } })).rejects.toMatchObject({ code: -32602 });
        await expect(client.callTool({ name: 'get_invoices', arguments: { id: '00000000-0000-4000-8000-000000000000' } })).rejects.toMatchObject({ code: -32602 });
      } finally {
        await client.close();
      }
    });

    it('grants the names tools/list shows: a token made with them lists and calls exactly those', async () => {
      const person = await personWithToken('fin.invoices:read,fm.vehicles:read', 'list_records,summarise');
      const [{ tools }] = (await db.query('SELECT tools FROM mcp_tokens WHERE id = $1', [person.tokenId])).rows;
      expect(tools).toEqual(expect.arrayContaining(['list_invoices', 'list_vehicles', 'summarise_finance', 'summarise_fleet']));
      expect(tools.every((tool: string) => tool.startsWith('list_') || tool.startsWith('summarise_'))).toBe(true);
      const client = await modernClient(mcp.base, person.token, a.tenant.slug);
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['list_records', 'summarise']);
        expect((await client.callTool({ name: 'list_records', arguments: { resource: 'vehicles', limit: 1 } })).isError).toBeFalsy();
        expect((await client.callTool({ name: 'summarise', arguments: { area: 'finance' } })).isError).toBeFalsy();
        await expect(client.callTool({ name: 'get_record', arguments: { resource: 'invoices', id: '00000000-0000-4000-8000-000000000000' } })).rejects.toMatchObject({ code: -32602 });
      } finally {
        await client.close();
      }
    });

    // Before: two calls of one per-resource tool in a batch registered it twice (HTTP 500), and a
    // batch's tools/list listed the per-resource tools the batch called.
    it('answers each call of a batch naming one per-resource tool twice, and its tools/list as alone', async () => {
      const rpc = async (messages: object[]) => {
        const response = await fetch(`${mcp.base}/mcp`, {
          method: 'POST',
          headers: { ...credentials(a.mcp_token, a.tenant.slug), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' },
          body: JSON.stringify(messages),
        });
        const text = await response.text();
        const json = response.headers.get('content-type')?.startsWith('text/event-stream')
          ? text.split('\n').filter((line) => line.startsWith('data: ')).flatMap((line) => JSON.parse(line.slice(6)))
          : JSON.parse(text);
        return { status: response.status, answers: new Map((Array.isArray(json) ? json : [json]).map((answer: any) => [answer.id, answer])) };
      };
      const names = (answer: any) => answer.result.tools.map((tool: { name: string }) => tool.name);
      const alone = await rpc([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]);
      const batch = await rpc([
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_invoices', arguments: { limit: 1 } } },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_invoices', arguments: { limit: 2 } } },
        { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      ]);
      expect(batch.status).toBe(200);
      expect(batch.answers.get(1).result.structuredContent.data).toHaveLength(1);
      expect(batch.answers.get(2).result.structuredContent.data).toHaveLength(2);
      expect(names(batch.answers.get(3))).toEqual(names(alone.answers.get(1)));
      expect(names(batch.answers.get(3))).not.toContain('list_invoices');
    });

    it('refuses the call once user:set-permissions withdraws the permission and allows it again once restored, with no restart', async () => {
      const person = await personWithToken('fin.invoices:read,fm.vehicles:read', '*');
      const client = await legacyClient(mcp.base, person.token, a.tenant.slug);
      const headers = credentials(person.token, a.tenant.slug);
      try {
        expect((await client.callTool({ name: 'list_invoices', arguments: { limit: 1 } })).isError).toBeFalsy();

        const withdrawn = await runCli('user:set-permissions', '--user', person.userId, '--permissions', 'fm.vehicles:read');
        expect(withdrawn.json).toEqual({ id: person.userId, permissions: ['fm.vehicles:read'] });
        await expect(client.callTool({ name: 'list_invoices', arguments: { limit: 1 } })).rejects.toMatchObject({ code: -32602 });
        const refused = await shortcut(mcp.base, '/tools/call', headers, { name: 'list_invoices', arguments: { limit: 1 } });
        expect(refused.status).toBe(422);
        expect(refused.headers.get('content-type')).toBe('application/problem+json');
        // The same answer as for a tool that does not exist: nothing says the tool is there.
        expect(refused.body).toEqual({
          type: expect.stringMatching(/\/validation$/),
          title: expect.any(String),
          status: 422,
          detail: 'Tool list_invoices not found: POST /tools/list names the tools this token may call.',
          detail_key: 'errors.mcp.invalid_request',
          field: 'name',
        });
        const listRecords = (await client.listTools()).tools.find((tool) => tool.name === 'list_records')!;
        expect((listRecords.inputSchema.properties as any).resource.enum).not.toContain('invoices');
        expect((await client.callTool({ name: 'list_records', arguments: { resource: 'invoices' } })).isError).toBe(true);
        expect((await client.callTool({ name: 'list_vehicles', arguments: { limit: 1 } })).isError).toBeFalsy();

        await runCli('user:set-permissions', '--user', person.userId, '--permissions', 'fin.invoices:read,fm.vehicles:read');
        expect((await client.callTool({ name: 'list_invoices', arguments: { limit: 1 } })).isError).toBeFalsy();
        expect((await shortcut(mcp.base, '/tools/call', headers, { name: 'list_invoices', arguments: { limit: 1 } })).status).toBe(200);
      } finally {
        await client.close();
      }
    });
  });

  describe('REST shortcuts', () => {
    const headers = () => credentials(a.mcp_token, a.tenant.slug);

    it('POST /tools/list answers the tools of JSON-RPC tools/list', async () => {
      const listed = await shortcut(mcp.base, '/tools/list', headers());
      expect(listed.status).toBe(200);
      expect(listed.headers.get('content-type')).toBe('application/json');
      expect(listed.body!.tools).toEqual((await modern.listTools()).tools);
      expect(listed.body!.tools).toEqual((await legacy.listTools()).tools);
    });

    it('POST /tools/call answers what JSON-RPC tools/call answers; what JSON-RPC refuses, as a problem', async () => {
      for (const [name, args] of [
        ['list_invoices', { limit: 3 }],
        ['summarise_support', {}],
        ['list_invoices', { limit: 'x' }],
      ] as const) {
        const called = await shortcut(mcp.base, '/tools/call', headers(), { name, arguments: args });
        expect(called.status).toBe(200);
        const viaJsonRpc: any = await legacy.callTool({ name, arguments: args as Record<string, unknown> });
        expect(called.body!.content).toEqual(viaJsonRpc.content);
        expect(called.body!.structuredContent).toEqual(viaJsonRpc.structuredContent);
        expect(called.body!.isError).toEqual(viaJsonRpc.isError);
      }
      const unknown = await shortcut(mcp.base, '/tools/call', headers(), { name: 'drop_invoices', arguments: {} });
      await expect(legacy.callTool({ name: 'drop_invoices', arguments: {} })).rejects.toMatchObject({ code: -32602 });
      expect(unknown.status).toBe(422);
      expect(unknown.headers.get('content-type')).toBe('application/problem+json');
      expect(unknown.body).toMatchObject({ status: 422, detail_key: 'errors.mcp.invalid_request', field: 'name', detail: expect.stringMatching(/^Tool drop_invoices not found: /) });
    });

    it('refuses a body that is not {name, arguments} with 422 naming the member', async () => {
      for (const [body, field] of [
        [[1], 'body'],
        [{ arguments: {} }, 'name'],
        [{ name: 'list_invoices', arguments: [1] }, 'arguments'],
      ] as const) {
        const refused = await shortcut(mcp.base, '/tools/call', headers(), body);
        expect(refused.status).toBe(422);
        expect(refused.body).toMatchObject({ detail_key: 'errors.mcp.invalid_request', field });
      }
      const stray = await shortcut(mcp.base, '/tools/call', headers(), { name: 'list_invoices', arguments: {}, argumnets: { limit: 1 } });
      expect(stray.status).toBe(422);
      expect(stray.body).toMatchObject({ detail_key: 'errors.mcp.invalid_request', field: 'argumnets' });
      // Like the REST API: a body is JSON by its Content-Type (fetch sends a string as text/plain; curl -d as a form).
      for (const type of ['text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', undefined]) {
        const untyped = await fetch(`${mcp.base}/tools/call`, {
          method: 'POST',
          headers: { ...headers(), ...(type ? { 'content-type': type } : {}) },
          body: type ? '{"name":"list_invoices","arguments":{}}' : new Blob(['{"name":"list_invoices","arguments":{}}']),
        });
        expect(untyped.status).toBe(415);
        expect(await untyped.json()).toMatchObject({ detail_key: 'errors.common.unsupported_media_type', field: 'Content-Type' });
      }
      expect((await shortcut(mcp.base, '/tools/call', { ...headers(), 'content-type': 'application/vnd.api+json; charset=utf-8' }, { name: 'list_invoices', arguments: {} })).status).toBe(200);
      // Read as it comes, UTF-8: another charset or a compressed body is refused, never misread.
      for (const [extra, field] of [[{ 'content-type': 'application/json; charset=utf-16le' }, 'Content-Type'], [{ 'content-encoding': 'gzip' }, 'Content-Encoding']] as const) {
        const refused = await shortcut(mcp.base, '/tools/call', { ...headers(), ...extra }, { name: 'list_invoices', arguments: {} });
        expect(refused.status).toBe(415);
        expect(refused.body).toMatchObject({ detail_key: 'errors.common.unsupported_media_type', field });
      }
      const broken = await fetch(`${mcp.base}/tools/call`, { method: 'POST', headers: { ...headers(), 'content-type': 'application/json' }, body: '{nope' });
      expect(broken.status).toBe(422);
      expect(((await broken.json()) as any).detail_key).toBe('errors.common.validation.malformed_json');
    });
  });

  it("limits a company's tokens together: more tokens buy it no more of the server, other companies unaffected", async () => {
    const limited = await startMcp({ MCP_RATE_LIMIT_PER_MINUTE: '3', MCP_TENANT_RATE_LIMIT_PER_MINUTE: '4' });
    // Another minute than the per-token test's, whose requests count in company A's window too.
    try {
      await inOneWindow(limited.handle.context, Date.UTC(2026, 4, 16, 11, 15, 15, 250), async () => {
        const [first, second] = [await personWithToken('fin.invoices:read', '*'), await personWithToken('fin.invoices:read', '*')];
        for (let sent = 0; sent < 3; sent += 1) expect((await shortcut(limited.base, '/tools/list', credentials(first.token, a.tenant.slug))).status).toBe(200);
        const last = await shortcut(limited.base, '/tools/list', credentials(second.token, a.tenant.slug));
        expect(last.status).toBe(200);
        expect(last.headers.get('ratelimit-policy')).toBe('"mcp";q=3;w=60, "mcp_company";q=4;w=60');
        expect(last.headers.get('ratelimit')).toMatch(/^"mcp";r=2;t=\d+, "mcp_company";r=0;t=\d+$/);
        // Before: the second token had its own three, and six tokens six times the allowance.
        const refused = await shortcut(limited.base, '/tools/list', credentials(second.token, a.tenant.slug));
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(refused.body).toMatchObject({ status: 429, detail_key: 'errors.platform.rate_limit.exceeded', detail: expect.stringContaining('At most 4 requests per minute per company') });
        // Refused, it took nothing from the token's own window: its header and its count in Redis say one request used.
        expect(refused.headers.get('ratelimit')).toMatch(/^"mcp";r=2;t=\d+, "mcp_company";r=0;t=\d+$/);
        const redis = new Redis(process.env.REDIS_URL!);
        try {
          const [counter] = await redis.keys(`${process.env.REDIS_PREFIX}:ratelimit:mcp:${second.tokenId}:*`);
          expect(await redis.get(counter)).toBe('1');
        } finally {
          redis.disconnect();
        }
        expect((await shortcut(limited.base, '/tools/list', credentials(b.mcp_token, b.tenant.slug))).status).toBe(200);
      });
    } finally {
      await limited.close();
    }
  });

  it('limits requests per token: 429 with Retry-After on /mcp and on the shortcuts, other tokens unaffected', async () => {
    const limited = await startMcp({ MCP_RATE_LIMIT_PER_MINUTE: '2' });
    // All of this test's requests fall in one minute window, however long they take.
    try {
      await inOneWindow(limited.handle.context, Date.UTC(2026, 4, 16, 10, 15, 15, 250), async () => {
        const person = await personWithToken('fin.invoices:read', '*');
        const headers = credentials(person.token, a.tenant.slug);
        expect((await shortcut(limited.base, '/tools/list', headers)).status).toBe(200);
        expect((await shortcut(limited.base, '/tools/call', headers, { name: 'list_invoices', arguments: {} })).status).toBe(200);
        const refused = await shortcut(limited.base, '/tools/call', headers, { name: 'list_invoices', arguments: {} });
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(refused.body).toMatchObject({ status: 429, detail_key: 'errors.platform.rate_limit.exceeded' });
        const viaMcp = await fetch(`${limited.base}/mcp`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
        });
        expect(viaMcp.status).toBe(429);
        expect(Number(viaMcp.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        const other = await personWithToken('fin.invoices:read', '*');
        expect((await shortcut(limited.base, '/tools/list', credentials(other.token, a.tenant.slug))).status).toBe(200);

        // A JSON-RPC batch (2025-03-26) counts each of its messages: two pings use up a token's two requests, and a batch of three runs none.
        const batch = (token: string, size: number) =>
          fetch(`${limited.base}/mcp`, {
            method: 'POST',
            headers: { ...credentials(token, a.tenant.slug), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' },
            body: JSON.stringify(Array.from({ length: size }, (_, n) => ({ jsonrpc: '2.0', id: n + 1, method: 'ping' }))),
          });
        const third = await personWithToken('fin.invoices:read', '*');
        expect((await batch(third.token, 2)).status).toBe(200);
        expect((await shortcut(limited.base, '/tools/list', credentials(third.token, a.tenant.slug))).status).toBe(429);
        // A batch over what the minute has left is refused and takes none of it: the token's one remaining request still runs.
        const fourth = await personWithToken('fin.invoices:read', '*');
        expect((await shortcut(limited.base, '/tools/list', credentials(fourth.token, a.tenant.slug))).status).toBe(200);
        const overBudget = await batch(fourth.token, 2);
        expect(overBudget.status).toBe(429);
        // Its header counts what the batch leaves: one request, which the next call runs.
        expect(overBudget.headers.get('ratelimit')).toMatch(/^"mcp";r=1;t=\d+, "mcp_company";r=\d+;t=\d+$/);
        expect(await overBudget.json()).toMatchObject({ status: 429, detail_key: 'errors.platform.rate_limit.exceeded' });
        expect((await shortcut(limited.base, '/tools/list', credentials(fourth.token, a.tenant.slug))).status).toBe(200);
        expect((await shortcut(limited.base, '/tools/list', credentials(fourth.token, a.tenant.slug))).status).toBe(429);
        // One larger than a minute's allowance could never run: refused as an invalid request (no Retry-After to wait for), counted as one request.
        const fifth = await personWithToken('fin.invoices:read', '*');
        const tooLarge = await batch(fifth.token, 3);
        expect(tooLarge.status).toBe(400);
        expect(tooLarge.headers.get('retry-after')).toBeNull();
        expect(await tooLarge.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('more than the 2 a token may send per minute') } });
        expect((await shortcut(limited.base, '/tools/list', credentials(fifth.token, a.tenant.slug))).status).toBe(200);
        expect((await shortcut(limited.base, '/tools/list', credentials(fifth.token, a.tenant.slug))).status).toBe(429);
        // A request counts before its body is read: bodies over 1 MiB use up the allowance like any other.
        const sixth = await personWithToken('fin.invoices:read', '*');
        for (let sent = 0; sent < 2; sent += 1) {
          const oversized = await fetch(`${limited.base}/mcp`, {
            method: 'POST',
            headers: { ...credentials(sixth.token, a.tenant.slug), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: `{"pad":"${'x'.repeat(1024 * 1024)}"}`,
          }).catch(() => undefined);
          if (oversized) expect(oversized.status).toBe(413);
        }
        expect((await shortcut(limited.base, '/tools/list', credentials(sixth.token, a.tenant.slug))).status).toBe(429);
      });
    } finally {
      await limited.close();
    }
  });
});

/**
 * Failed authentications on the agent-tool server count per client address with the REST
 * API's, on a Redis prefix of its own so other tests' failures (all from 127.0.0.1) do not
 * count. Behind a trusted proxy, the address is the one X-Forwarded-For names.
 */
describe('agent-tool server: failed-authentication limit per client address (e2e)', () => {
  let mcp: TestMcp;
  let demo: Demo;

  beforeAll(async () => {
    demo = (await runCli('seed:demo', '--records', '1')).json as unknown as Demo;
    mcp = await startMcp({ AUTH_FAILURES_PER_MINUTE: '3', TRUST_PROXY: 'loopback', REDIS_PREFIX: `${process.env.REDIS_PREFIX}-mcp-auth-failures` });
  });
  afterAll(() => mcp?.close());

  const from = (address: string, token: string) => shortcut(mcp.base, '/tools/list', { ...credentials(token, demo.tenant.slug), 'X-Forwarded-For': address });

  it('answers 429 with Retry-After past the limit, then refuses that address even a valid token, and no other address', async () => {
    const wrong = `oht_zzzzzzzzzzzz_${'A'.repeat(43)}`;
    for (let attempt = 0; attempt < 3; attempt += 1) expect((await from('203.0.113.7', wrong)).status).toBe(401);
    const refused = await from('203.0.113.7', wrong);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 429, detail_key: 'errors.platform.rate_limit.exceeded' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-policy')).toBe('"auth_failures";q=3;w=60');

    expect((await from('203.0.113.7', demo.mcp_token)).status).toBe(429);
    expect((await from('203.0.113.8', demo.mcp_token)).status).toBe(200);
    expect((await fetch(`${mcp.base}/handshake`, { headers: { 'X-Forwarded-For': '203.0.113.7' } })).status).toBe(200);
  });

  it('counts an IPv6 client by its /64, the network one host holds, and an IPv4-mapped address as its IPv4 one', async () => {
    const wrong = `oht_zzzzzzzzzzzz_${'A'.repeat(43)}`;
    // Three addresses of one /64: one host could take 2^64 of them, each with a count of its own.
    for (const address of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:abcd:ef01:2345:6789']) expect((await from(address, wrong)).status).toBe(401);
    expect((await from('2001:db8:1:2:ffff::9', wrong)).status).toBe(429);
    expect((await from('2001:db8:1:2::77', demo.mcp_token)).status).toBe(429);
    expect((await from('2001:db8:1:3::1', demo.mcp_token)).status).toBe(200);
    for (let attempt = 0; attempt < 3; attempt += 1) expect((await from('198.51.100.4', wrong)).status).toBe(401);
    expect((await from('::ffff:198.51.100.4', wrong)).status).toBe(429);
    expect((await from('198.51.100.4', demo.mcp_token)).status).toBe(429);
  });
});
