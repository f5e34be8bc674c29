import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { type AuthInfo, localhostAllowedOrigins, SUPPORTED_PROTOCOL_VERSIONS, validateOriginHeader } from '@modelcontextprotocol/server';
import type { ApiRequest } from '../platform/auth/auth-context.js';
import { AppConfig } from '../platform/config/app-config.js';
import { DomainException } from '../platform/errors/domain.exception.js';
import { PROBLEM_CONTENT_TYPE, type Problem, toProblem } from '../platform/errors/problem.js';
import { type Logger as PinoLogger, PINO_LOGGER } from '../platform/logging/logging.module.js';
import { onRequestDone, requestLogLine } from '../platform/logging/request-log.js';
import { rateLimited, rateLimitHeader, rateLimitPolicyHeader } from '../platform/rate-limit/rate-limit-headers.js';
import { mcpWindow, type RateLimitWindow } from '../platform/rate-limit/rate-limit.policies.js';
import { RateLimiterService } from '../platform/rate-limit/rate-limiter.service.js';
import { TRACE_HEADER, traceIdFrom } from '../platform/tracing/trace-id.js';
import { type McpCaller, McpTokensService } from './mcp-tokens.service.js';
import { MODERN_PROTOCOL_VERSION, SERVER_CAPABILITIES, SERVER_INFO, type ShortcutAnswer, ToolServer } from './tool-server.js';

const BODY_LIMIT_BYTES = 1024 * 1024;
const TENANT_HEADER = 'x-oh-tenant';

function pathOf(request: IncomingMessage): string {
  return new URL(request.url ?? '/', 'http://localhost').pathname.replace(/(.)\/+$/, '$1');
}

type Route = 'mcp' | 'handshake' | 'tools/list' | 'tools/call';
const ROUTES: Record<string, { route: Route; method: 'GET' | 'POST' }> = {
  '/mcp': { route: 'mcp', method: 'POST' },
  '/handshake': { route: 'handshake', method: 'GET' },
  '/tools/list': { route: 'tools/list', method: 'POST' },
  '/tools/call': { route: 'tools/call', method: 'POST' },
};

/**
 * The agent-tool server's HTTP front, in front of the SDK: routing, Origin check, token
 * authentication, the per-token rate limit, the handshake and the REST shortcuts. Answers of its
 * own are problem+json like the REST API's; JSON-RPC itself is the SDK's.
 */
@Injectable()
export class McpHttpService {
  private readonly logger = new Logger(McpHttpService.name);
  private readonly window: RateLimitWindow;
  private readonly allowedOrigins: string[];
  private readonly mcp: ReturnType<typeof toNodeHandler>;
  private readonly logRequest: ReturnType<typeof onRequestDone>;

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(McpTokensService) private readonly tokens: McpTokensService,
    @Inject(ToolServer) private readonly tools: ToolServer,
    @Inject(RateLimiterService) private readonly rateLimiter: RateLimiterService,
    @Inject(PINO_LOGGER) pino: PinoLogger,
  ) {
    const logLine = requestLogLine(pino);
    // The route is one of ROUTES' fixed paths (never the query string), else null.
    this.logRequest = onRequestDone(logLine, (request) => {
      const path = pathOf(request);
      return ROUTES[path] ? path : null;
    });
    this.window = mcpWindow(config.MCP_RATE_LIMIT_PER_MINUTE);
    this.allowedOrigins = [...localhostAllowedOrigins(), ...config.MCP_ALLOWED_ORIGINS];
    this.mcp = toNodeHandler(tools.handler);
  }

  /** The handshake: no token needed. */
  handshake(): Record<string, unknown> {
    return {
      protocolVersions: [MODERN_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS],
      capabilities: SERVER_CAPABILITIES,
      serverInfo: SERVER_INFO,
      transport: { type: 'streamable-http', endpoint: '/mcp', stateless: true },
      authentication: { authorization: 'Bearer oht_<token>', tenantHeader: 'X-OH-Tenant' },
    };
  }

  readonly handle = async (request: IncomingMessage & { auth?: AuthInfo }, response: ServerResponse): Promise<void> => {
    // One log line per request under its trace id, like the REST API.
    (request as unknown as ApiRequest).traceId = traceIdFrom(request.headers.traceparent);
    response.setHeader(TRACE_HEADER, (request as unknown as ApiRequest).traceId!);
    this.logRequest(request as unknown as ApiRequest, response, () => undefined);
    try {
      const entry = ROUTES[pathOf(request)];
      if (!entry) throw new DomainException('RouteNotFound', 'No route matches this path; the MCP endpoint is POST /mcp.');
      if (request.method !== entry.method && !(entry.method === 'GET' && request.method === 'HEAD')) {
        response.setHeader('Allow', entry.method);
        throw new DomainException('MethodNotAllowed', entry.route === 'mcp' ? 'POST /mcp only: this server opens no server-initiated stream and keeps no session.' : undefined);
      }
      this.checkOrigin(request);
      if (entry.route === 'handshake') return this.json(response, 200, this.handshake());

      const caller = await this.tokens.authenticate(header(request, 'authorization'), header(request, TENANT_HEADER));
      await this.countRequest(caller, response);
      if (entry.route === 'mcp') {
        request.auth = this.tools.authInfo(caller);
        return await this.mcp(request, response);
      }
      return await this.shortcut(entry.route, caller, request, response);
    } catch (error) {
      const problem = toProblem(error, this.config.errorsBaseUrl);
      // Expected refusals are the caller's business; anything else is logged with its stack, never answered.
      if (problem.body.status >= 500) this.logger.error(error instanceof Error ? error : new Error(String(error)), 'agent-tool request failed');
      if (!response.headersSent) this.problem(response, problem);
      else response.destroy();
    }
  };

  /** DNS-rebinding protection: a browser's `Origin` must be localhost or configured. */
  private checkOrigin(request: IncomingMessage): void {
    const result = validateOriginHeader(header(request, 'origin'), this.allowedOrigins);
    if (!result.ok) throw new DomainException('McpOriginNotAllowed', `${result.message} Allowed: localhost and MCP_ALLOWED_ORIGINS.`);
  }

  private async countRequest(caller: McpCaller, response: ServerResponse): Promise<void> {
    const decision = await this.rateLimiter.consume([this.window], caller.tokenId);
    response.setHeader('RateLimit-Policy', rateLimitPolicyHeader([this.window]));
    response.setHeader('RateLimit', rateLimitHeader(decision.states));
    if (!decision.allowed) {
      throw rateLimited(decision.states.at(-1)!.resetMs, (retryAfter) => `At most ${this.window.points} requests per minute per token; retry in ${retryAfter} s.`);
    }
  }

  /**
   * `POST /tools/list` (body ignored) and `POST /tools/call` (`{name, arguments}`): 200 with
   * the JSON-RPC result, or 400 with the JSON-RPC error object as `{error}`.
   */
  private async shortcut(route: 'tools/list' | 'tools/call', caller: McpCaller, request: IncomingMessage, response: ServerResponse): Promise<void> {
    let params: Record<string, unknown> = {};
    if (route === 'tools/call') {
      const body = await readJson(request);
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new DomainException('McpInvalidRequest', 'The body must be a JSON object {name, arguments}.', { field: 'body' });
      }
      const { name, arguments: args = {} } = body as Record<string, unknown>;
      if (typeof name !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(name)) {
        throw new DomainException('McpInvalidRequest', 'name must be a tool name from POST /tools/list.', { field: 'name' });
      }
      if (args === null || typeof args !== 'object' || Array.isArray(args)) {
        throw new DomainException('McpInvalidRequest', 'arguments must be a JSON object.', { field: 'arguments' });
      }
      params = { name, arguments: args };
    }
    const answer: ShortcutAnswer = await this.tools.shortcut(caller, route, params);
    if (answer.error) return this.json(response, 400, { error: answer.error });
    const { _meta, ...result } = answer.result ?? {};
    return this.json(response, 200, result);
  }

  private json(response: ServerResponse, status: number, body: unknown): void {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  private problem(response: ServerResponse, problem: Problem): void {
    response.writeHead(problem.body.status, { 'content-type': PROBLEM_CONTENT_TYPE, ...problem.headers }).end(JSON.stringify(problem.body));
  }
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The request body as JSON: 413 beyond 1 MiB, 422 when it is not JSON. */
async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT_BYTES) throw new DomainException('PayloadTooLarge', 'The request body exceeds 1 MiB.');
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new DomainException('MalformedJson', 'The request body could not be parsed as JSON.');
  }
}
