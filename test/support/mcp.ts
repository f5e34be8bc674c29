import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMcpServer, type McpServerHandle } from '../../src/app/create-mcp-server.js';
import { testConfig } from './config.js';

export interface TestMcp {
  handle: McpServerHandle;
  /** `http://127.0.0.1:<port>` */
  base: string;
  close: () => Promise<void>;
}

/** The agent-tool server of the `mcp` role on an ephemeral port, on this run's database and Redis. */
export async function startMcp(env: Record<string, string> = {}): Promise<TestMcp> {
  const handle = await createMcpServer(testConfig(env));
  await new Promise<void>((resolve) => handle.server.listen(0, '127.0.0.1', resolve));
  const { port } = handle.server.address() as AddressInfo;
  return { handle, base: `http://127.0.0.1:${port}`, close: () => handle.close() };
}

export function credentials(token: string, tenant: string): Record<string, string> {
  return { Authorization: `Bearer ${token}`, 'X-OH-Tenant': tenant };
}

/** The SDK v2 client, pinned to the 2026-07-28 revision (stateless, `_meta` on every request). */
export async function modernClient(base: string, token: string, tenant: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'e2e-modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { ...credentials(token, tenant), ...headers } } }));
  return client;
}

/** The 1.x SDK client most hosts ship, speaking 2025-11-25 over Streamable HTTP. */
export async function legacyClient(base: string, token: string, tenant: string, headers: Record<string, string> = {}): Promise<LegacyClient> {
  const client = new LegacyClient({ name: 'e2e-legacy', version: '1.0.0' });
  await client.connect(new LegacyTransport(new URL(`${base}/mcp`), { requestInit: { headers: { ...credentials(token, tenant), ...headers } } }));
  return client;
}

/** POST a REST shortcut; answers status, headers and parsed body. */
export async function shortcut(base: string, path: '/tools/list' | '/tools/call', headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, any>) : undefined };
}
