import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { type AuthInfo, localhostAllowedOrigins, SUPPORTED_PROTOCOL_VERSIONS, validateOriginHeader } from '@modelcontextprotocol/server';
import type { ApiRequest } from '../platform/auth/auth-context.js';
import { headerCount } from '../platform/auth/bearer-credentials.js';
import { AppConfig } from '../platform/config/app-config.js';
import { DomainException } from '../platform/errors/domain.exception.js';
import { PROBLEM_CONTENT_TYPE, type Problem, toProblem } from '../platform/errors/problem.js';
import { type Logger as PinoLogger, PINO_LOGGER } from '../platform/logging/logging.module.js';
import { Metrics } from '../platform/metrics/metrics.service.js';
import { onRequestDone, requestLogLine } from '../platform/logging/request-log.js';
import { rateLimited, rateLimitHeader, rateLimitPolicyHeader } from '../platform/rate-limit/rate-limit-headers.js';
import { mcpCompanyWindow, mcpWindow, type RateLimitWindow } from '../platform/rate-limit/rate-limit.policies.js';
import { type RateLimitDecision, RateLimiterService } from '../platform/rate-limit/rate-limiter.service.js';
import { AuthFailureLimiter } from '../platform/rate-limit/auth-failure-limiter.service.js';
import { clientAddressReader } from '../platform/http/client-address.js';
import { TRACE_HEADER, traceIdFrom } from '../platform/tracing/trace-id.js';
import { checkBody, checkFraming, checkJsonHeaders, checkUncompressedUtf8, checkUtf8, UNSTORABLE_CHARACTERS } from '../platform/http/request-checks.js';
import { type McpCaller, McpTokensService } from './mcp-tokens.service.js';
import { MODERN_PROTOCOL_VERSION, SERVER_CAPABILITIES, SERVER_INFO, type ShortcutAnswer, type ToolRequest, ToolServer } from './tool-server.js';
import { TOOLS_HEADER, toolSelection, type ToolSelection, ToolSelectionRefused, TOOLSETS_HEADER } from './tools/tool-selection.js';

/** JSON-RPC's codes for a body that is not JSON, a request it cannot be, and arguments a method cannot take. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** The SDK's code for a refusal of the HTTP request itself (its 406 and 415). */
const SDK_HTTP_ERROR = -32000;
/** Every protocol revision served, the newest first. */
const SERVED_PROTOCOL_VERSIONS: readonly string[] = [MODERN_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];

const BODY_LIMIT_BYTES = 1024 * 1024;
/** Where a 2026-07-28 request names its revision, in the `_meta` envelope. */
const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
const TENANT_HEADER = 'x-oh-tenant';

/** The request's path, or null when its target is no URL (`//[`): no route has it. */
function pathOf(request: IncomingMessage): string | null {
  try {
    return new URL(request.url ?? '/', 'http://localhost').pathname.replace(/(.)\/+$/, '$1');
  } catch {
    return null;
  }
}

/** A request's counts: its token's window, then its company's. */
interface McpCount {
  token: RateLimitDecision;
  company: RateLimitDecision;
}

type Route = 'mcp' | 'handshake' | 'metrics' | 'tools/list' | 'tools/call';
const ROUTES: Record<string, { route: Route; method: 'GET' | 'POST' }> = {
  '/mcp': { route: 'mcp', method: 'POST' },
  '/handshake': { route: 'handshake', method: 'GET' },
  '/metrics': { route: 'metrics', method: 'GET' },
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
  private readonly companyWindow: RateLimitWindow;
  private readonly allowedOrigins: string[];
  private readonly mcp: ReturnType<typeof toNodeHandler>;
  private readonly logRequest: ReturnType<typeof onRequestDone>;
  private readonly clientAddress: (request: IncomingMessage) => string;

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    @Inject(McpTokensService) private readonly tokens: McpTokensService,
    @Inject(ToolServer) private readonly tools: ToolServer,
    @Inject(RateLimiterService) private readonly rateLimiter: RateLimiterService,
    @Inject(AuthFailureLimiter) private readonly failures: AuthFailureLimiter,
    @Inject(Metrics) private readonly metrics: Metrics,
    @Inject(PINO_LOGGER) pino: PinoLogger,
  ) {
    const logLine = requestLogLine(pino);
    // The route is one of ROUTES' fixed paths (never the query string), else null.
    this.logRequest = onRequestDone(
      (request, outcome) => {
        logLine(request, outcome);
        metrics.observeRequest(outcome.method, outcome.route, outcome.status, outcome.durationMs);
      },
      (request) => {
        const path = pathOf(request);
        return path !== null && ROUTES[path] ? path : null;
      },
    );
    this.window = mcpWindow(config.MCP_RATE_LIMIT_PER_MINUTE);
    this.companyWindow = mcpCompanyWindow(config.MCP_TENANT_RATE_LIMIT_PER_MINUTE);
    this.clientAddress = clientAddressReader(config.trustProxy);
    this.allowedOrigins = [...localhostAllowedOrigins(), ...config.MCP_ALLOWED_ORIGINS];
    // The SDK answers an event stream with `Cache-Control: no-cache, no-transform`, which would
    // replace the no-store set on every answer: a stream holds the same company data.
    this.mcp = toNodeHandler({
      fetch: async (request, context) => {
        const response = await tools.handler.fetch(request, context);
        const headers = new Headers(response.headers);
        headers.set('cache-control', 'no-store');
        return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
      },
    });
  }

  /** The handshake: no token needed. */
  handshake(): Record<string, unknown> {
    return {
      // Spec 4 names one "protocol version": the newest served. The list says which others are.
      protocolVersion: MODERN_PROTOCOL_VERSION,
      protocolVersions: SERVED_PROTOCOL_VERSIONS,
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
    // Tool answers hold a company's data, as the REST API's do: no cache keeps them.
    response.setHeader('Cache-Control', 'no-store');
    this.logRequest(request as unknown as ApiRequest, response, () => undefined);
    try {
      checkFraming(request, response);
      const path = pathOf(request);
      const entry = path === null ? undefined : ROUTES[path];
      if (!entry) throw new DomainException('RouteNotFound', 'No route matches this path; the MCP endpoint is POST /mcp.');
      if (request.method === 'OPTIONS') return this.preflight(request, response, entry);
      if (request.method !== entry.method && !(entry.method === 'GET' && request.method === 'HEAD')) {
        response.setHeader('Allow', `${allowed(entry.method)}, OPTIONS`);
        throw new DomainException('MethodNotAllowed', entry.route === 'mcp' ? 'POST /mcp only: this server opens no server-initiated stream and keeps no session.' : undefined);
      }
      this.checkOrigin(request);
      if (entry.route !== 'metrics') allowOrigin(request, response);
      if (entry.route === 'handshake') return this.json(response, 200, this.handshake());
      if (entry.route === 'metrics') return await this.scrape(response);

      const caller = await this.authenticate(request);
      (request as unknown as ApiRequest).keyPrefix = caller.prefix;
      // Counted before the body is read, so a token past its limit costs no read of up to 1 MiB.
      const counted = await this.countRequest(caller, response);
      if (entry.route === 'mcp') return await this.jsonRpc(caller, counted, request, response);
      return await this.shortcut(entry.route, caller, request, response);
    } catch (error) {
      const problem = toProblem(error, this.config.errorsBaseUrl);
      // Expected refusals (a 501 for a transfer coding among them) are the caller's business;
      // anything else is logged with its stack, never answered.
      if (problem.cause !== undefined) this.logger.error(error instanceof Error ? error : new Error(String(error)), 'agent-tool request failed');
      if (response.headersSent) {
        response.destroy();
        return;
      }
      // A body not read to its end closes the connection with the answer: one given up part-read
      // (over 1 MiB) would leave its rest to be read as the next request, and one refused before
      // it arrived (no token) left Node waiting for it, which then answered a second time, 408,
      // once the request's time ran out. (A request read to its end is complete.)
      if (!request.complete) response.setHeader('Connection', 'close');
      this.problem(response, problem);
    }
  };

  /**
   * The caller of a request that needs a token. Failed authentications count per client address
   * with the REST API's (AUTH_FAILURES_PER_MINUTE, one counter in Redis for both servers): once
   * this server has seen the count past the limit, the address is answered 429 until the window
   * ends, a valid token included (docs/choices.md, "Failed authentications per client address").
   */
  private async authenticate(request: IncomingMessage): Promise<McpCaller> {
    const address = () => this.clientAddress(request);
    this.failures.assertNotBlocked(address);
    try {
      // Two Authorization headers are no credentials, as on the REST API: Node would keep the first, a proxy may have checked the other.
      const authorization = headerCount(request, 'authorization') > 1 ? undefined : header(request, 'authorization');
      return await this.tokens.authenticate(authorization, header(request, TENANT_HEADER));
    } catch (failure) {
      throw failure instanceof DomainException && failure.errorName === 'McpUnauthenticated' ? await this.failures.failed(address(), failure) : failure;
    }
  }

  /**
   * `POST /mcp`: the body is read here, so that what the SDK would choke on never reaches it
   * (arguments nested deeper than the REST API allows, a character no record can hold: both
   * JSON-RPC invalid params), and so that the server built for the request knows the tools it
   * calls. Then the SDK answers, from the parsed body.
   */
  private async jsonRpc(caller: McpCaller, counted: McpCount, request: IncomingMessage & { auth?: AuthInfo }, response: ServerResponse): Promise<void> {
    // Read as it comes, as on /tools/call: a compressed body was run when it was plain text
    // labelled gzip, and refused as not JSON when it was gzip. Answered as the SDK answers a
    // Content-Type it cannot read: 415, JSON-RPC error -32000.
    try {
      checkUncompressedUtf8(request.headers);
    } catch (refusal) {
      if (!(refusal instanceof DomainException)) throw refusal;
      return this.json(response, 415, { jsonrpc: '2.0', id: null, error: { code: SDK_HTTP_ERROR, message: `Unsupported Media Type: ${refusal.message}` } });
    }
    const raw = await readBody(request);
    let body: unknown;
    try {
      checkUtf8(raw);
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return this.json(response, 400, { jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: 'Parse error: the body is not JSON in UTF-8.' } });
    }
    const messages = (Array.isArray(body) ? body : [body]) as Record<string, any>[];
    // Refused before anything answers with it: the answers below echo ids, and a 20,000-level
    // array as id overflowed the stack of the answer's JSON.stringify (the connection closed with
    // no answer). JSON-RPC 2.0 answers a message it cannot read the id of with id null.
    if (messages.some((message) => message !== null && typeof message === 'object' && !isRequestIdOrAbsent(message.id))) {
      return this.json(response, 400, { jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message: 'Invalid Request: a message id must be a string or a number.' } });
    }
    const id = messages.length === 1 && messages[0] !== null && typeof messages[0] === 'object' ? (messages[0].id ?? null) : null;
    // A refused request is answered with its JSON-RPC error; a refused batch with one for each of
    // its requests, an array as JSON-RPC 2.0 answers a batch. A notification is never answered, so
    // a body of notifications alone is refused with an HTTP error (Streamable HTTP).
    const answered = messages.filter((message) => typeof message?.method === 'string' && message.id !== undefined);
    const refusal = answered.length > 0 ? 200 : 400;
    const refuse = (error: Record<string, unknown>) =>
      this.json(
        response,
        refusal,
        Array.isArray(body) && answered.length > 0 ? answered.map((message) => ({ jsonrpc: '2.0', id: message.id, error })) : { jsonrpc: '2.0', id, error },
      );
    // A revision this server does not serve is named as such, with those it serves, whatever the
    // body's form (the SDK read an unknown later date as 2026-07-28's and asked for its _meta).
    const revision = header(request, 'mcp-protocol-version');
    if (revision !== undefined && !SERVED_PROTOCOL_VERSIONS.includes(revision)) {
      return this.json(response, 400, {
        jsonrpc: '2.0',
        id,
        error: {
          code: UNSUPPORTED_PROTOCOL_VERSION,
          message: `Unsupported protocol version: ${revision} (supported versions: ${SERVED_PROTOCOL_VERSIONS.join(', ')})`,
          data: { supported: SERVED_PROTOCOL_VERSIONS, requested: revision },
        },
      });
    }
    const modern = revision === MODERN_PROTOCOL_VERSION || messages.some((message) => message?.params?._meta?.[PROTOCOL_VERSION_META] !== undefined);
    // 2026-07-28 has no batches: refused whole (400, -32600, as the SDK would), counted as one
    // request, before anything reads it (the SDK's parse of one 20,000 levels deep overflowed the stack).
    if (Array.isArray(body) && modern) {
      return this.json(response, 400, { jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message: `Invalid Request: batches are not supported in ${MODERN_PROTOCOL_VERSION}; send one message per request.` } });
    }
    try {
      checkBody(body);
    } catch (error) {
      if (!(error instanceof DomainException)) throw error;
      const field = typeof error.extras.field === 'string' ? error.extras.field.replace(/^params\./, '') : undefined;
      const message =
        error.extras.code === 'max_depth'
          ? 'Invalid params: the request is nested deeper than 64 levels.'
          : `Invalid params: ${field ?? 'the body'} contains ${UNSTORABLE_CHARACTERS[error.extras.code as keyof typeof UNSTORABLE_CHARACTERS]}, which no record can hold.`;
      return refuse({ code: INVALID_PARAMS, message, data: { field, code: error.extras.code } });
    }
    // A batch (2025-03-26) is as many requests as it holds messages: one was counted already, the
    // others are counted before any runs, and refused, the batch takes nothing. One larger than a
    // minute's allowance could never run: it is refused at once, counted as one request.
    const requests = messages.filter((message) => typeof message?.method === 'string').length;
    if (requests > Math.min(this.window.points, this.companyWindow.points)) {
      const [allowance, who] = this.window.points <= this.companyWindow.points ? [this.window.points, 'a token'] : [this.companyWindow.points, "a company's tokens together"];
      const message = `Invalid Request: a batch of ${requests} requests is more than the ${allowance} ${who} may send per minute; send smaller batches.`;
      return this.json(response, 400, { jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message } });
    }
    if (requests > 1) {
      await this.countRequest(caller, response, requests - 1).catch(async (refused: unknown) => {
        await this.refund(counted, caller);
        // Refused, the batch took nothing: left is what its first count left, and that one.
        const states = [...counted.token.states, ...counted.company.states];
        response.setHeader('RateLimit', rateLimitHeader(states.map((state) => ({ ...state, remaining: state.remaining + 1 }))));
        throw refused;
      });
    }
    let toolRequest: ToolRequest;
    try {
      const calls = messages.flatMap((message) => (message?.method === 'tools/call' && typeof message.params?.name === 'string' ? [message.params.name as string] : []));
      toolRequest = { caller, selection: this.selection(request), calls };
    } catch (error) {
      if (error instanceof ToolSelectionRefused) return refuse({ code: INVALID_PARAMS, message: error.message, data: error.data });
      throw error;
    }
    for (const message of messages) {
      // 2025-era only: 2026-07-28 has no initialize, and the SDK answers it -32601.
      if (!modern && message?.method === 'initialize' && !initializeParams(message.params)) {
        return refuse({ code: INVALID_PARAMS, message: 'Invalid params: initialize takes protocolVersion (a string), capabilities (an object) and clientInfo {name, version}.' });
      }
      // A null cursor is none, as null arguments are. The SDK answered a cursor of another type
      // -32603, an internal error, with its schema's complaint as the message.
      if (message?.method === 'tools/list' && message.params?.cursor === null) delete message.params.cursor;
      if (message?.method === 'tools/list' && message.params?.cursor !== undefined && typeof message.params.cursor !== 'string') {
        return refuse({ code: INVALID_PARAMS, message: 'Invalid params: cursor must be a string, the nextCursor of an earlier tools/list.', data: { field: 'cursor' } });
      }
      if (message?.method === 'tools/call' && message.params?.arguments === null) delete message.params.arguments;
      if (message?.method === 'tools/call') this.tools.dropNullArguments(message.params?.arguments);
      const refused = message?.method === 'tools/call' ? this.tools.argumentsRefusal(message.params?.arguments) : undefined;
      if (refused !== undefined) return refuse({ code: INVALID_PARAMS, message: `Invalid params: ${refused.reason}.`, data: { field: refused.field } });
    }
    // The calls the SDK runs if it takes the request (well-formed, their name the one the headers give).
    const named = header(request, 'mcp-name');
    const refusedBySchema: string[] = [];
    for (const message of messages) {
      if (message?.jsonrpc !== '2.0' || message.id === undefined || message.method !== 'tools/call' || typeof message.params?.name !== 'string') continue;
      if (named !== undefined && named !== message.params.name) continue;
      const tool = this.tools.refusedBySchema(toolRequest, message.params.name, message.params.arguments);
      if (tool !== undefined) refusedBySchema.push(tool);
    }
    request.auth = this.tools.authInfo(toolRequest);
    await this.mcp(request, response, body);
    // Not when the SDK refused the request itself (an HTTP error: no Accept for its answer, a
    // 2026-07-28 request without its _meta): then it ran no call.
    if (response.statusCode === 200) for (const tool of refusedBySchema) this.tools.noteRefused(toolRequest, tool);
  }

  /** The tools the connection asked to see (X-MCP-Toolsets, X-MCP-Tools). */
  private selection(request: IncomingMessage): ToolSelection {
    return toolSelection(
      { toolsets: header(request, TOOLSETS_HEADER), tools: header(request, TOOLS_HEADER) },
      (name) => this.tools.isTool(name),
      () => this.tools.toolNames(),
    );
  }

  /**
   * `GET /metrics` for Prometheus, as the API port serves it, when METRICS_PORT is unset (else the
   * metrics server does), so that a process of the mcp role alone can be scraped.
   */
  private async scrape(response: ServerResponse): Promise<void> {
    if (this.config.METRICS_PORT !== undefined) throw new DomainException('RouteNotFound', 'Metrics are served on METRICS_PORT.');
    response.writeHead(200, { 'content-type': this.metrics.registry.contentType, 'cache-control': 'no-store' }).end(await this.metrics.registry.metrics());
  }

  /**
   * `OPTIONS`: 204 with `Allow`; a browser's CORS preflight from an accepted origin also gets
   * what it asks before it may send the request (the headers a tool call carries), so a web client
   * such as the Inspector's can call this server from its page; any other origin gets 403.
   */
  private preflight(request: IncomingMessage, response: ServerResponse, { route, method }: { route: Route; method: string }): void {
    this.checkOrigin(request);
    response.setHeader('Allow', `${allowed(method)}, OPTIONS`);
    // Metrics are for Prometheus, never a page's to read.
    if (route !== 'metrics' && allowOrigin(request, response)) {
      response.setHeader('Access-Control-Allow-Methods', method);
      response.setHeader('Access-Control-Allow-Headers', CORS_REQUEST_HEADERS);
      response.setHeader('Access-Control-Max-Age', '600');
    }
    response.writeHead(204).end();
  }

  /**
   * DNS-rebinding protection: a browser's `Origin` must be a web page (http or https) of localhost
   * or a configured host, any port.
   */
  private checkOrigin(request: IncomingMessage): void {
    const origin = header(request, 'origin');
    const result = validateOriginHeader(origin, this.allowedOrigins);
    if (!result.ok) throw new DomainException('McpOriginNotAllowed', `${result.message} Allowed: localhost and MCP_ALLOWED_ORIGINS.`);
    if (origin !== undefined && !/^https?:\/\//i.test(origin)) throw new DomainException('McpOriginNotAllowed', `Origin ${origin.slice(0, 100)} is no web page (http or https).`);
  }

  /**
   * Counts the token's requests, then, once its window allows them, its company's (so that more
   * tokens buy a company no more of the server, as more keys buy none of the REST API).
   */
  private async countRequest(caller: McpCaller, response: ServerResponse, requests = 1): Promise<McpCount> {
    const token = await this.rateLimiter.consume([this.window], caller.tokenId, requests);
    const company = token.allowed ? await this.rateLimiter.consume([this.companyWindow], caller.tenantId, requests) : undefined;
    response.setHeader('RateLimit-Policy', rateLimitPolicyHeader([this.window, this.companyWindow]));
    if (!company?.allowed) {
      // What is refused runs nothing, so it takes none of what the minute has left: a batch too
      // large for it leaves the token its remaining requests. (The window ends at a fixed time anyway.)
      await this.refund({ token, company }, caller, requests);
      // The token's window, refused by its company's, has its count back; the window that refused is at its limit.
      const given = token.states.map((state) => ({ ...state, remaining: state.remaining + requests }));
      response.setHeader('RateLimit', rateLimitHeader(company ? [...given, ...company.states] : token.states));
      const [refused, whose] = company ? [company, 'per company (all its tokens together)'] : [token, 'per token'];
      throw rateLimited(refused.states.at(-1)!.resetMs, (retryAfter) => `At most ${refused.states.at(-1)!.window.points} requests per minute ${whose}; retry in ${retryAfter} s.`);
    }
    response.setHeader('RateLimit', rateLimitHeader([...token.states, ...company.states]));
    return { token, company };
  }

  private async refund(count: { token: RateLimitDecision; company?: RateLimitDecision }, caller: McpCaller, requests = 1): Promise<void> {
    await this.rateLimiter.refund(count.token, caller.tokenId, requests);
    if (count.company) await this.rateLimiter.refund(count.company, caller.tenantId, requests);
  }

  /**
   * `POST /tools/list` (body ignored) and `POST /tools/call` (`{name, arguments}`): 200 with
   * the JSON-RPC result. What JSON-RPC refuses as invalid params (an unknown name in the
   * selection headers, a tool this token may not call) is 422 `invalid_request` naming the header
   * or `name`, problem+json as every other refusal of these routes.
   */
  private async shortcut(route: 'tools/list' | 'tools/call', caller: McpCaller, request: IncomingMessage, response: ServerResponse): Promise<void> {
    let params: Record<string, unknown> = {};
    let selection: ToolSelection;
    try {
      selection = this.selection(request);
    } catch (error) {
      if (!(error instanceof ToolSelectionRefused)) throw error;
      throw new DomainException('McpInvalidRequest', error.message, { field: error.data.header });
    }
    if (route === 'tools/call') {
      checkJsonHeaders(request.headers);
      const body = await readJson(request);
      // 422 like the REST API: arguments nested deeper than 64 levels, or holding U+0000 or a lone surrogate, naming the member.
      checkBody(body);
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new DomainException('McpInvalidRequest', 'The body must be a JSON object {name, arguments}.', { field: 'body' });
      }
      const stray = Object.keys(body).find((member) => member !== 'name' && member !== 'arguments');
      if (stray !== undefined) throw new DomainException('McpInvalidRequest', `Unknown member ${stray.slice(0, 100)}: the body is {name, arguments}.`, { field: stray.slice(0, 100) });
      // No arguments, null as leaving them out (as for each argument, see dropNullArguments).
      const { name, arguments: args = {} } = body as Record<string, unknown>;
      if (typeof name !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(name)) {
        throw new DomainException('McpInvalidRequest', 'name must be a tool name from POST /tools/list.', { field: 'name' });
      }
      if (args !== null && (typeof args !== 'object' || Array.isArray(args))) {
        throw new DomainException('McpInvalidRequest', 'arguments must be a JSON object.', { field: 'arguments' });
      }
      params = { name, arguments: args ?? {} };
    }
    const toolRequest: ToolRequest = { caller, selection, calls: typeof params.name === 'string' ? [params.name] : [] };
    if (route === 'tools/call') {
      this.tools.dropNullArguments(params.arguments);
      const refused = this.tools.argumentsRefusal(params.arguments);
      if (refused !== undefined) throw new DomainException('McpInvalidRequest', `Invalid arguments: ${refused.reason}.`, { field: refused.field });
    }
    const answer: ShortcutAnswer = await this.tools.shortcut(toolRequest, route, params);
    const refusedBySchema = route === 'tools/call' ? this.tools.refusedBySchema(toolRequest, params.name as string, params.arguments) : undefined;
    if (refusedBySchema !== undefined) this.tools.noteRefused(toolRequest, refusedBySchema);
    if (answer.error?.code === INVALID_PARAMS) {
      // The SDK's server for this caller has only the tools it may call: any other is not found.
      throw new DomainException('McpInvalidRequest', `${answer.error.message}: POST /tools/list names the tools this token may call.`, { field: 'name' });
    }
    if (answer.error) throw new Error(`the SDK answered ${route} with JSON-RPC error ${answer.error.code}: ${answer.error.message}`);
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

/**
 * Whether `initialize` params have the shape the SDK reads (spec 4: protocolVersion,
 * capabilities, clientInfo with name and version); it answered others -32603, an internal error.
 */
function initializeParams(params: unknown): boolean {
  if (params === null || typeof params !== 'object') return false;
  const { protocolVersion, capabilities, clientInfo } = params as Record<string, unknown>;
  const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
  return typeof protocolVersion === 'string' && isObject(capabilities) && isObject(clientInfo) && typeof clientInfo.name === 'string' && typeof clientInfo.version === 'string';
}

/** A JSON-RPC id a request may carry: a string or a number; null or none, as a notification or an unknown id has. */
function isRequestIdOrAbsent(id: unknown): boolean {
  return id === undefined || id === null || typeof id === 'string' || typeof id === 'number';
}

/** The methods a route answers: a GET route answers HEAD too. */
const allowed = (method: string) => (method === 'GET' ? 'GET, HEAD' : method);

/** What a browser client may send, and read of the answer, across origins (CORS). */
const CORS_REQUEST_HEADERS = ['Authorization', 'Content-Type', 'MCP-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'X-OH-Tenant', 'X-MCP-Toolsets', 'X-MCP-Tools', 'traceparent'].join(', ');
const CORS_EXPOSED_HEADERS = ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'WWW-Authenticate', TRACE_HEADER].join(', ');

/**
 * Names the request's Origin, already accepted by checkOrigin, as allowed to read the answer;
 * answers whether the request had one. The answer varies with it either way.
 */
function allowOrigin(request: IncomingMessage, response: ServerResponse): boolean {
  response.setHeader('Vary', 'Origin');
  const origin = header(request, 'origin');
  if (origin === undefined) return false;
  response.setHeader('Access-Control-Allow-Origin', origin);
  response.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
  return true;
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The request body: 413 beyond 1 MiB; 422 when it never arrives whole, as the REST API answers. */
async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size > BODY_LIMIT_BYTES) throw new DomainException('PayloadTooLarge', 'The request body exceeds 1 MiB.');
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof DomainException) throw error;
    // The client closed the connection, or Node gave up on it (too slow, broken chunking) and
    // answered on the socket: the caller's doing, not a fault of this server.
    throw new DomainException('InvalidInput', 'The request could not be read: the body did not arrive whole.');
  }
  return Buffer.concat(chunks);
}

/** The request body as JSON: 413 beyond 1 MiB, 422 when it is not JSON in UTF-8. */
async function readJson(request: IncomingMessage): Promise<unknown> {
  const raw = await readBody(request);
  checkUtf8(raw);
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new DomainException('MalformedJson', 'The request body could not be parsed as JSON.');
  }
}
