import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { type AuthInfo, type CallToolResult, createMcpHandler, type McpHttpHandler, McpServer } from '@modelcontextprotocol/server';
import { AccessService } from '../platform/access/access.service.js';
import { Counter } from 'prom-client';
import { AppConfig } from '../platform/config/app-config.js';
import { DomainException } from '../platform/errors/domain.exception.js';
import { isTransientFault } from '../platform/errors/transient-faults.js';
import { fieldLineLogger } from '../platform/logging/logger.js';
import { type Logger as PinoLogger, PINO_LOGGER } from '../platform/logging/logging.module.js';
import { Metrics } from '../platform/metrics/metrics.service.js';
import { type McpCaller, McpTokensService } from './mcp-tokens.service.js';
import { TenantTurns } from '../platform/tenancy/tenant-turns.js';
import { COMPACT_TOOL_NAMES } from './tool-names.js';
import { type AgentTool, ToolCatalog } from './tools/tool-catalog.js';
import type { ToolSelection } from './tools/tool-selection.js';

/** The MCP revision of 2026 (stateless, `_meta` on every request); 2025 clients are served too. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';
export const SERVER_INFO = { name: 'integrations-api', title: 'Integrations API', version: '2026-05-16' };
/** Tools only; the list never changes while a client is connected (there is no connection). */
export const SERVER_CAPABILITIES = { tools: { listChanged: false } };
/** How long a client may reuse a tools/list answer (2026-07-28 cache hint). */
const TOOLS_LIST_TTL_MS = 60_000;

/** The server's instructions, naming the areas the registry has (a new feature's included). */
function instructionsFor(areas: readonly string[]): string {
  const named = areas.length > 1 ? `${areas.slice(0, -1).join(', ')} and ${areas.at(-1)}` : areas.join('');
  return (
    `Read-only access to one company's ${named} data. Start with summarise for totals, ` +
    'search_records to find records by the members its description names, get_record for one record by id, and list_records or ' +
    'recent_changes for pages (follow next_cursor). Money is in minor units with its currency.'
  );
}

const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** What a call that the server, not its arguments, could not answer says: the tool server's 503 and 500. */
export const TOOL_BUSY_TEXT = 'The service is busy; try again in a few seconds.';
export const TOOL_FAILED_TEXT = 'The tool failed unexpectedly; try again later.';

/** The JSON-RPC answer the REST shortcuts unwrap. */
export interface ShortcutAnswer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** What one request's server registers; `unlisted`: names called but not listed, which tools/list leaves out. */
interface CallableTools {
  tools: AgentTool[];
  unlisted: ReadonlySet<string>;
}

/** Who asks, what the connection selected, and the tools the request calls (from its body). */
export interface ToolRequest {
  readonly caller: McpCaller;
  readonly selection: ToolSelection;
  readonly calls: readonly string[];
}

/**
 * The MCP server of one request: the SDK's stateless handler builds a fresh McpServer per
 * request from the caller, registering exactly the tools the caller may use now (named by the
 * token, permission held by its person, within the connection's toolsets). Any other tool is
 * unknown to that server, so a refused tool and a non-existent one get the same JSON-RPC error
 * -32602 and never data.
 */
@Injectable()
export class ToolServer implements OnModuleDestroy {
  readonly handler: McpHttpHandler;
  private readonly logger = new Logger(ToolServer.name);
  /** The line per tool call: named fields only, so written without the redaction pass (fieldLineLogger). */
  private readonly callLines: PinoLogger;

  private readonly calls: Counter<'tool' | 'outcome'>;
  private readonly turns: TenantTurns;
  private readonly instructions: string;
  /** The tools each request may call, worked out once: its checks and its server both need them. */
  private readonly callableTools = new WeakMap<ToolRequest, CallableTools>();

  constructor(
    @Inject(ToolCatalog) private readonly catalog: ToolCatalog,
    @Inject(AccessService) private readonly access: AccessService,
    @Inject(Metrics) metrics: Metrics,
    @Inject(PINO_LOGGER) pino: PinoLogger,
    @Inject(AppConfig) config: AppConfig,
    @Inject(McpTokensService) private readonly tokens: McpTokensService,
  ) {
    this.turns = new TenantTurns(config.MCP_TENANT_CONCURRENCY, config.DATABASE_STATEMENT_TIMEOUT_MS);
    this.instructions = instructionsFor([...new Set(catalog.resourceTools.map((tool) => tool.area))]);
    this.callLines = fieldLineLogger(pino, { context: ToolServer.name });
    this.calls = metrics.once('mcp_tool_calls_total', () =>
      new Counter({
        name: 'mcp_tool_calls_total',
        help: 'Agent-tool calls by tool and outcome (ok, refused: an isError result for the arguments, failed: an unexpected error)',
        labelNames: ['tool', 'outcome'] as const,
        registers: [metrics.registry],
      }),
    );
    // The SDK warns on the console, outside the JSON log, that JSON answers drop mid-call
    // notifications: chosen on purpose (the tools send none), so its words go to the log at debug.
    const warn = console.warn;
    console.warn = (...words: unknown[]) => this.logger.debug(words.join(' '));
    try {
      this.handler = createMcpHandler(({ authInfo }) => this.serverFor(requestOf(authInfo)), {
        responseMode: 'json',
        onerror: (error) => this.logger.debug(`MCP request refused: ${error.message}`),
      });
    } finally {
      console.warn = warn;
    }
  }

  /** Aborts exchanges still running when the process shuts down. */
  onModuleDestroy(): Promise<void> {
    return this.handler.close();
  }

  /** What the SDK passes through to the per-request factory. */
  authInfo(request: ToolRequest): AuthInfo {
    return { token: request.caller.tokenId, clientId: request.caller.tokenId, scopes: request.caller.tools, extra: { request } };
  }

  /** Whether a name is a tool of this server, for X-MCP-Tools. */
  isTool(name: string): boolean {
    return COMPACT_TOOL_NAMES.includes(name) || this.catalog.resourceTool(name) !== undefined;
  }

  toolNames(): string[] {
    return [...COMPACT_TOOL_NAMES, ...this.catalog.resourceTools.map((tool) => tool.name)];
  }

  /**
   * The tools `tools/list` shows this connection now: the compact tools over what it may read,
   * or, when it named tools (X-MCP-Tools), those of them it may use, in catalogue order.
   */
  toolsFor(caller: McpCaller, selection: ToolSelection): AgentTool[] {
    const usable = this.usable(caller, selection);
    const compact = this.catalog.compactTools(usable);
    if (selection.tools === null) return compact;
    const named = new Set(selection.tools);
    return [...compact.filter((tool) => named.has(tool.name)), ...this.catalog.resourceTools.filter((tool) => named.has(tool.name) && usable(tool))];
  }

  /**
   * The tools one request may run: those listed, plus, when the connection named none, the
   * resource tools it calls by name (tokens grant them; clients written for them keep working),
   * each once however often a batch calls it, and left out of the batch's `tools/list`.
   */
  private callable(request: ToolRequest): CallableTools {
    let tools = this.callableTools.get(request);
    if (tools === undefined) {
      tools = this.callableNow(request);
      this.callableTools.set(request, tools);
    }
    return tools;
  }

  private callableNow(request: ToolRequest): CallableTools {
    const listed = this.toolsFor(request.caller, request.selection);
    if (request.selection.tools !== null) return { tools: listed, unlisted: new Set() };
    const usable = this.usable(request.caller, request.selection);
    const unlisted = new Set(request.calls.filter((name) => !listed.some((tool) => tool.name === name)));
    const called = [...unlisted].flatMap((name) => {
      const tool = this.catalog.resourceTool(name);
      return tool && usable(tool) ? [tool] : [];
    });
    return { tools: [...listed, ...called], unlisted };
  }

  /**
   * Drops the arguments given as null, in place, before anything checks them: many agent
   * runtimes send null for an optional argument they leave out (OpenAI's strict function
   * calling must), and no argument of these tools means anything by null.
   */
  dropNullArguments(args: unknown): void {
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return;
    for (const [name, value] of Object.entries(args)) if (value === null) delete (args as Record<string, unknown>)[name];
  }

  /**
   * Arguments refused before the SDK sees them: it names every argument a tool does not take in
   * its refusal (40,000 names made a 469 kB answer), and passes a name every object inherits
   * (`constructor`) as known.
   */
  argumentsRefusal(args: unknown): ArgumentsRefusal | undefined {
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return undefined;
    const names = Object.keys(args);
    const unknown = names.find((argument) => argument in Object.prototype || argument.length > MAX_ARGUMENT_NAME_LENGTH)?.slice(0, MAX_ARGUMENT_NAME_LENGTH);
    if (unknown !== undefined) return { field: `arguments.${unknown}`, reason: `unknown argument ${unknown}` };
    if (names.length > MAX_ARGUMENTS) return { field: 'arguments', reason: `${names.length} arguments, where a tool takes at most ${MAX_ARGUMENTS}` };
    return undefined;
  }

  /**
   * The tool whose schema refuses these arguments, when the call names one the caller may use:
   * the SDK answers such a call with an `isError` result (so the model can correct its call),
   * short since no schema message repeats a value, but never reaches our code, so the front
   * counts it (noteRefused) once the SDK has run it. Arguments that are no object are a protocol
   * error the SDK answers instead.
   */
  refusedBySchema(request: ToolRequest, name: string, args: unknown): string | undefined {
    if (args !== undefined && args !== null && (typeof args !== 'object' || Array.isArray(args))) return undefined;
    const tool = this.callable(request).tools.find((candidate) => candidate.name === name);
    return tool !== undefined && !tool.input.safeParse(args ?? {}).success ? tool.name : undefined;
  }

  /** Logs and counts a call of `tool` its schema refused (refusedBySchema) as the tool's `refused` call. */
  noteRefused(request: ToolRequest, tool: string): void {
    this.record(tool, request.caller, 'refused', 0);
  }

  private usable(caller: McpCaller, selection: ToolSelection): (tool: AgentTool) => boolean {
    return (tool) => (selection.toolsets === null || selection.toolsets.has(tool.area)) && this.access.toolRefusal(caller, tool.name, tool.scopes) === null;
  }

  /**
   * A REST shortcut: the same JSON-RPC method through the same SDK handler (a 2026-07-28
   * request built here), so shortcut and JSON-RPC answers cannot differ.
   */
  async shortcut(request: ToolRequest, method: 'tools/list' | 'tools/call', params: Record<string, unknown>): Promise<ShortcutAnswer> {
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
    const rpc = new Request('http://localhost/mcp', {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta } }),
    });
    const response = await this.handler.fetch(rpc, { authInfo: this.authInfo(request) });
    return (await response.json()) as ShortcutAnswer;
  }

  private serverFor(request: ToolRequest): McpServer {
    const { caller } = request;
    const server = new McpServer(SERVER_INFO, {
      capabilities: SERVER_CAPABILITIES,
      instructions: this.instructions,
      cacheHints: { 'tools/list': { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: 'private' } },
    });
    // The SDK keeps its tools in a plain object, so a call of `constructor` or `toString` found
    // Object.prototype's member and was answered "Tool constructor disabled". With no prototype,
    // such a name is what it is: a tool not found.
    const registered: Record<string, unknown> = Object.create(null);
    Object.assign(server, { _registeredTools: registered });
    const { tools, unlisted } = this.callable(request);
    for (const tool of tools) {
      server.registerTool(
        tool.name,
        { title: tool.title, description: tool.description, inputSchema: tool.input, outputSchema: tool.output, annotations: { title: tool.title, ...ANNOTATIONS } },
        (args: Record<string, unknown>) => this.call(tool, caller, args),
      );
      // The SDK lists the tools it can enumerate: one a batch calls by name answers its call, but
      // `tools/list` answers the same list whatever else the batch holds (a review saw it grow).
      if (unlisted.has(tool.name)) Object.defineProperty(registered, tool.name, { enumerable: false });
    }
    return server;
  }

  private record(tool: string, caller: McpCaller, outcome: CallOutcome, durationMs: number): void {
    this.calls.inc({ tool, outcome });
    this.callLines.info({ tool, token_prefix: caller.prefix, outcome, duration_ms: Math.round(durationMs) }, 'tool call');
  }

  /**
   * structuredContent plus the same JSON as text; an expected failure is an isError result naming
   * the argument; a database too busy to answer now is one too, saying to try again. Each call
   * waits for its company's turn (TenantTurns), and is counted and logged with the tool and the
   * token's public prefix.
   */
  private async call(tool: AgentTool, caller: McpCaller, args: Record<string, unknown>): Promise<CallToolResult> {
    const started = performance.now();
    const done = (outcome: CallOutcome) => this.record(tool.name, caller, outcome, performance.now() - started);
    try {
      const result = await this.turns.run(caller.tenantId, async (waited) => {
        // Revoked while the call waited for its turn (up to DATABASE_STATEMENT_TIMEOUT_MS), the token is not served.
        if (waited && !(await this.tokens.stillActive(caller))) {
          throw new DomainException(
            'McpUnauthenticated',
            "This agent-tool token was revoked, its company deactivated or its person's permissions changed while the call waited for its turn; call again.",
          );
        }
        return tool.run(caller.tenantId, args);
      });
      done('ok');
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
    } catch (error) {
      // The company's turn did not come: the server is busy, not the arguments wrong.
      if (error instanceof DomainException && error.errorName !== 'ServiceUnavailable') {
        done('refused');
        const field = typeof error.extras.field === 'string' ? `${error.extras.field}: ` : '';
        return { isError: true, content: [{ type: 'text', text: `${field}${error.message}` }] };
      }
      done('failed');
      if (isTransientFault(error) || error instanceof DomainException) {
        this.logger.warn({ err: error, tool: tool.name }, 'tool call: the service could not answer now');
        return { isError: true, content: [{ type: 'text', text: TOOL_BUSY_TEXT }] };
      }
      this.logger.error(error instanceof Error ? error : new Error(String(error)), `tool ${tool.name} failed`);
      return { isError: true, content: [{ type: 'text', text: TOOL_FAILED_TEXT }] };
    }
  }
}

type CallOutcome = 'ok' | 'refused' | 'failed';

/** Arguments refused before the SDK sees them: the member at fault (one argument, or all), and why. */
export interface ArgumentsRefusal {
  readonly field: string;
  readonly reason: string;
}

/** More than any tool takes (five at most), and longer than any name it takes. */
const MAX_ARGUMENTS = 16;
const MAX_ARGUMENT_NAME_LENGTH = 64;

function requestOf(authInfo: AuthInfo | undefined): ToolRequest {
  const request = authInfo?.extra?.request as ToolRequest | undefined;
  // The HTTP layer authenticates before the SDK sees a request; no caller means a wiring fault.
  if (!request) throw new Error('MCP request reached the SDK without an authenticated caller');
  return request;
}
