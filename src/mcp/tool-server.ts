import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { type AuthInfo, type CallToolResult, createMcpHandler, type McpHttpHandler, McpServer } from '@modelcontextprotocol/server';
import { AccessService } from '../platform/access/access.service.js';
import { DomainException } from '../platform/errors/domain.exception.js';
import type { McpCaller } from './mcp-tokens.service.js';
import { type AgentTool, ToolCatalog } from './tools/tool-catalog.js';

/** The MCP revision of 2026 (stateless, `_meta` on every request); 2025 clients are served too. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';
export const SERVER_INFO = { name: 'integrations-api', title: 'Integrations API', version: '2026-05-16' };
/** Tools only; the list never changes while a client is connected (there is no connection). */
export const SERVER_CAPABILITIES = { tools: { listChanged: false } };
/** How long a client may reuse a tools/list answer (2026-07-28 cache hint). */
export const TOOLS_LIST_TTL_MS = 60_000;

const INSTRUCTIONS =
  'Read-only access to one company\'s finance, fleet, HR, support and document data. Start with a summarise_<area> tool for ' +
  'totals, use search_<resource> to find records by number, name or e-mail, get_<resource> for one record by id, and ' +
  'list_/recent_ for pages (follow next_cursor for more). Money is in minor units with its currency.';

const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** The JSON-RPC answer the REST shortcuts unwrap. */
export interface ShortcutAnswer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * The MCP server of one request: the SDK's stateless handler builds a fresh McpServer per
 * request from the caller, registering exactly the tools the caller may use now (named by the
 * token, permission held by its person). Any other tool is unknown to that server, so a refused
 * tool and a non-existent one get the same JSON-RPC error -32602 and never data.
 */
@Injectable()
export class ToolServer implements OnModuleDestroy {
  readonly handler: McpHttpHandler;
  private readonly logger = new Logger(ToolServer.name);

  constructor(
    @Inject(ToolCatalog) private readonly catalog: ToolCatalog,
    @Inject(AccessService) private readonly access: AccessService,
  ) {
    this.handler = createMcpHandler(({ authInfo }) => this.serverFor(callerOf(authInfo)), {
      responseMode: 'json',
      onerror: (error) => this.logger.debug(`MCP request refused: ${error.message}`),
    });
  }

  /** Aborts exchanges still running when the process shuts down. */
  onModuleDestroy(): Promise<void> {
    return this.handler.close();
  }

  /** What the SDK passes through to the per-request factory. */
  authInfo(caller: McpCaller): AuthInfo {
    return { token: caller.tokenId, clientId: caller.tokenId, scopes: caller.tools, extra: { caller } };
  }

  /** The tools this caller may use now, in catalogue order. */
  toolsFor(caller: McpCaller): AgentTool[] {
    return this.catalog.tools.filter((tool) => this.access.toolRefusal(caller, tool.name, tool.scopes) === null);
  }

  /**
   * A REST shortcut: the same JSON-RPC method through the same SDK handler (a 2026-07-28
   * request built here), so shortcut and JSON-RPC answers cannot differ.
   */
  async shortcut(caller: McpCaller, method: 'tools/list' | 'tools/call', params: Record<string, unknown>): Promise<ShortcutAnswer> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
      'mcp-method': method,
    };
    if (method === 'tools/call') headers['mcp-name'] = params.name as string;
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
      'io.modelcontextprotocol/clientInfo': { name: 'rest-shortcut', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const request = new Request('http://localhost/mcp', {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta } }),
    });
    const response = await this.handler.fetch(request, { authInfo: this.authInfo(caller) });
    return (await response.json()) as ShortcutAnswer;
  }

  private serverFor(caller: McpCaller): McpServer {
    const server = new McpServer(SERVER_INFO, {
      capabilities: SERVER_CAPABILITIES,
      instructions: INSTRUCTIONS,
      cacheHints: { 'tools/list': { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: 'private' } },
    });
    for (const tool of this.toolsFor(caller)) {
      server.registerTool(
        tool.name,
        { title: tool.title, description: tool.description, inputSchema: tool.input, outputSchema: tool.output, annotations: { title: tool.title, ...ANNOTATIONS } },
        (args: Record<string, unknown>) => this.call(tool, caller, args),
      );
    }
    return server;
  }

  /** structuredContent plus the same JSON as text; an expected failure is an isError result naming the argument. */
  private async call(tool: AgentTool, caller: McpCaller, args: Record<string, unknown>): Promise<CallToolResult> {
    try {
      const result = await tool.run(caller.tenantId, args);
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (error) {
      if (error instanceof DomainException) {
        const field = typeof error.extras.field === 'string' ? `${error.extras.field}: ` : '';
        return { isError: true, content: [{ type: 'text', text: `${field}${error.message}` }] };
      }
      this.logger.error(error instanceof Error ? error : new Error(String(error)), `tool ${tool.name} failed`);
      return { isError: true, content: [{ type: 'text', text: 'The tool failed unexpectedly; try again later.' }] };
    }
  }
}

function callerOf(authInfo: AuthInfo | undefined): McpCaller {
  const caller = authInfo?.extra?.caller as McpCaller | undefined;
  // The HTTP layer authenticates before the SDK sees a request; no caller means a wiring fault.
  if (!caller) throw new Error('MCP request reached the SDK without an authenticated caller');
  return caller;
}
