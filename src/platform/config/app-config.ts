import { plainToInstance, Transform } from 'class-transformer';
import ipaddr from 'ipaddr.js';
import proxyaddr from 'proxy-addr';
import { CURRENT_API_VERSION } from '../versioning/api-version.js';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  isURL,
  Matches,
  Max,
  Min,
  validateSync,
  ValidateBy,
} from 'class-validator';

export const APP_ROLES = ['api', 'mcp', 'worker'] as const;
export type AppRole = (typeof APP_ROLES)[number];

const list = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0)
    : value;
const int = ({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value);
const bool = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);
const intList = ({ value }: { value: unknown }) => {
  const items = list({ value });
  return Array.isArray(items) ? items.map((item) => int({ value: item })) : items;
};

/**
 * A CIDR range, or one address (a range of one). IPv4 in dotted decimal only: ipaddr.js reads
 * `10.0.0.010` as octal (10.0.0.8) and `127.1` as 127.0.0.1, not what the operator wrote.
 */
function isAllowedRange(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const [address, bits, ...rest] = value.split('/');
  if (rest.length > 0 || !(ipaddr.IPv4.isValidFourPartDecimal(address) || ipaddr.IPv6.isValid(address))) return false;
  return bits === undefined || ipaddr.isValidCIDR(value);
}

/** An entry that stays IPv6 (an IPv4-mapped address is its IPv4 address). */
const isIPv6Range = (value: string) => ipaddr.process(value.split('/')[0]).kind() === 'ipv6' || (value.includes('/') && value.includes(':'));

const IsCidr = () =>
  ValidateBy({
    name: 'isCidr',
    validator: {
      validate: isAllowedRange,
      defaultMessage: () => 'each entry must be a CIDR range such as 127.0.0.0/8, or one address (IPv4 in dotted decimal)',
    },
  }, { each: true });
/**
 * A URL of one of `schemes` that parses whole (host, port ≤ 65535): checked here, because a
 * client library's parse error quotes the value, password included, in a start-up crash dump.
 * Its path is `path`: a PostgreSQL URL must name its database (without one, pg quietly used the
 * maintenance database `postgres`), a Redis URL's is a database number or nothing (`/abc` failed
 * the start with a stack trace).
 */
const IsServiceUrl = (schemes: string[], path: RegExp, pathRule: string) =>
  ValidateBy({
    name: 'isServiceUrl',
    validator: {
      validate: (value) => {
        if (typeof value !== 'string' || !URL.canParse(value)) return false;
        const url = new URL(value);
        return schemes.includes(url.protocol.slice(0, -1)) && (url.hostname !== '' || url.searchParams.has('host')) && path.test(url.pathname);
      },
      defaultMessage: () => `must be a ${schemes.join(' or ')} URL with a host, a port of at most 65535 and ${pathRule} (the value is not repeated here: it may hold a password)`,
    },
  });
/** A public base URL: links are made by appending paths to it, so it has no query, fragment or credentials. */
const IsBaseUrl = () =>
  ValidateBy({
    name: 'isBaseUrl',
    validator: {
      validate: (value) => {
        if (typeof value !== 'string' || !isURL(value, URL_OPTIONS) || !URL.canParse(value)) return false;
        const url = new URL(value);
        // Read in the text, not the parsed URL: a bare `?` or `#` parses to an empty search or hash, but is no less appended to.
        return !/[?#]/.test(value) && url.username === '' && url.password === '';
      },
      defaultMessage: () => 'must be an http or https URL without query, fragment or credentials: paths are appended to it',
    },
  });
/** `TRUST_PROXY`: empty, a hop count, or what proxy-addr (express's reader of X-Forwarded-For) compiles. */
const IsTrustProxy = () =>
  ValidateBy({
    name: 'isTrustProxy',
    validator: {
      validate: (value) => {
        if (typeof value !== 'string') return false;
        const trimmed = value.trim();
        if (trimmed === '' || /^\d+$/.test(trimmed)) return true;
        try {
          proxyaddr.compile(trimmed.split(',').map((entry) => entry.trim()));
          return true;
        } catch {
          return false;
        }
      },
      defaultMessage: () => 'must be a hop count, or comma-separated addresses, CIDR ranges or loopback, linklocal, uniquelocal',
    },
  });
/** The longest wait a Node timer (setTimeout) or a PostgreSQL timeout takes: 2^31 - 1 ms, about 24.8 days. A longer one fires at once, or fails the connection. */
export const MAX_TIMER_MS = 2_147_483_647;
/**
 * The most a count or a limit may be (a failure streak, requests per second): far beyond any use,
 * and within what PostgreSQL's integers and the RateLimit headers' integers write as digits (a
 * limit of 1e21 was sent as `q=1e+21`, a streak beyond 2^63 failed every auto-disable check).
 */
const MAX_COUNT = 1_000_000_000;
/** The longest period a rule looks back over: 10 years. */
const MAX_PERIOD_MS = 3650 * 24 * 3600 * 1000;
/** 32 bytes, as 64 hexadecimal digits or in base64 (`openssl rand -base64 32`). */
const SECRETS_KEY = /^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=?|[A-Za-z0-9_-]{43})$/;
const URL_OPTIONS = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };
/** operations.md's default, fixed: tests and scripts outside this repository rely on it. */
const DEFAULT_PUBLIC_BASE_URL = 'http://localhost:3000';

/**
 * The service's whole configuration, read once from the environment (operations.md plus the
 * project's own variables, documented in the README). A bad value stops the start and the
 * message names the variable.
 */
export class AppConfig {
  @IsServiceUrl(['postgres', 'postgresql'], /^\/[^/]+$/, 'a database name')
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/integrations';

  @IsServiceUrl(['redis', 'rediss'], /^(\/\d{0,5})?$/, 'a database number or none')
  REDIS_URL = 'redis://127.0.0.1:6379';

  /** Prefix of every Redis key (queues, rate limits, the delivery gate), so several deployments or test runs can share one Redis. */
  @IsString()
  @Matches(/^[A-Za-z0-9_.:-]{1,64}$/)
  REDIS_PREFIX = 'oh';

  @Transform(int)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @Transform(int)
  @IsInt()
  @Min(0)
  @Max(65535)
  MCP_PORT = 3001;

  @Transform(list)
  @IsArray()
  @ArrayMinSize(1)
  @IsIn(APP_ROLES, { each: true })
  APP_ROLES: AppRole[] = ['api', 'mcp', 'worker'];

  /** Unset: `http://localhost:3000`, as operations.md fixes it, whatever PORT is (run-roles warns when they differ). */
  @IsOptional()
  @IsBaseUrl()
  PUBLIC_BASE_URL?: string = undefined;

  @IsOptional()
  @IsBaseUrl()
  ERRORS_BASE_URL?: string = undefined;

  @Transform(list)
  @IsArray()
  @IsCidr()
  WEBHOOK_ALLOWED_CIDRS: string[] = [];

  @Transform(bool)
  @IsBoolean()
  WEBHOOK_ALLOW_HTTP = false;

  @Transform(intList)
  @IsArray()
  @ArrayMinSize(7)
  @ArrayMaxSize(7)
  @IsInt({ each: true })
  @Min(0, { each: true })
  @Max(MAX_TIMER_MS, { each: true })
  WEBHOOK_RETRY_SCHEDULE_MS: number[] = [5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000];

  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(MAX_TIMER_MS)
  WEBHOOK_TIMEOUT_MS = 15000;

  /**
   * Days an event stays in the events feed (GET /v1/events) and in the database, with its
   * deliveries and their attempts; an event with a delivery still pending stays until it ends.
   */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(3650)
  EVENTS_RETENTION_DAYS = 30;

  /** How often each worker sweeps: relays events whose notification was lost, offers again pending deliveries the delivery gate lost. */
  @Transform(int)
  @IsInt()
  @Min(100)
  @Max(MAX_TIMER_MS)
  WEBHOOK_SWEEP_INTERVAL_MS = 30_000;

  /**
   * Requests in flight to one endpoint at once, over all workers (counted in Redis). 10 lets one
   * endpoint take thousands of deliveries a second from a receiver answering in a few
   * milliseconds, while a receiver that hangs holds no more than 10 of a worker's slots.
   */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_ENDPOINT_CONCURRENCY = 10;

  /** Attempts one worker process makes at once, over all endpoints. */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(10_000)
  WEBHOOK_WORKER_CONCURRENCY = 500;

  /** Failures in a row (5xx, timeout, no connection) that open an endpoint's circuit. */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(MAX_COUNT)
  WEBHOOK_CIRCUIT_FAILURES = 5;

  /** How long an open circuit waits before its first probe; doubled after each failed probe … */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(MAX_TIMER_MS)
  WEBHOOK_CIRCUIT_COOLDOWN_MS = 10_000;

  /** … up to this; also the longest a receiver's Retry-After holds its endpoint back. */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(MAX_TIMER_MS)
  WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS = 10 * 60 * 1000;

  /** auto_consecutive_failures: this many failed attempts in a row … */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(MAX_COUNT)
  WEBHOOK_DISABLE_CONSECUTIVE_FAILURES = 100;

  /** … whose first is at least this old (5 days, as Svix). */
  @Transform(int)
  @IsInt()
  @Min(0)
  @Max(MAX_PERIOD_MS)
  WEBHOOK_DISABLE_FAILURE_PERIOD_MS = 5 * 24 * 3600 * 1000;

  /** auto_410_repeat: this many attempts in a row answered 410 Gone. */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(MAX_COUNT)
  WEBHOOK_DISABLE_GONE_STREAK = 3;

  /** auto_7_day_all_dead: a delivery went dead and nothing was delivered for this long while attempts were made. */
  @Transform(int)
  @IsInt()
  @Min(0)
  @Max(MAX_PERIOD_MS)
  WEBHOOK_DISABLE_ALL_DEAD_PERIOD_MS = 7 * 24 * 3600 * 1000;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** General request limit per API key and second. */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(MAX_COUNT)
  RATE_LIMIT_PER_SECOND = 100;

  /** General request limit of a whole company, all its keys together, per second, shared by all processes. */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(MAX_COUNT)
  TENANT_RATE_LIMIT_PER_SECOND = 300;

  /**
   * How long a client may take to send one whole request, headers and body, on the REST and
   * agent-tool ports; beyond it the request is answered 408 and its connection closed, so a
   * client trickling bytes cannot hold a connection for Node's default five minutes.
   */
  @Transform(int)
  @IsInt()
  @Min(100)
  @Max(MAX_TIMER_MS)
  HTTP_REQUEST_TIMEOUT_MS = 30_000;

  /**
   * The longest one database statement may run, waits for locks included, and the longest a
   * request waits for a connection of its process's pool. Beyond it the request is answered 503
   * with Retry-After: a stuck statement must not hold a connection, or its caller, for ever,
   * nor a few of them every other company's requests. Migrations run without it.
   */
  @Transform(int)
  @IsInt()
  @Min(100)
  @Max(MAX_TIMER_MS)
  DATABASE_STATEMENT_TIMEOUT_MS = 10_000;

  /**
   * Failed authentications a client address may make per minute, counted in Redis for all
   * processes; beyond it, 429 until the minute is over.
   */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(MAX_COUNT)
  AUTH_FAILURES_PER_MINUTE = 30;

  /**
   * Which proxies to trust for the client address (express's `trust proxy`: `loopback`, a list
   * of addresses or ranges, or a hop count). Empty: the TCP peer is the client.
   */
  @IsTrustProxy()
  TRUST_PROXY = '';

  /** When set, Prometheus metrics are served on this port only, not on the API's. */
  @IsOptional()
  @Transform(int)
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT?: number = undefined;

  /**
   * Agent-tool server: tool calls of one company running at once in one process; more wait their
   * turn. With the merged tools' fan-out of 2, a company holds at most 4 of the pool's 10 connections.
   */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(8)
  MCP_TENANT_CONCURRENCY = 2;

  /**
   * REST API: requests of one company holding a turn at once in one process, the rest waiting
   * for one without a connection: one company holds at most this many of the pool's 10.
   */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(10)
  API_TENANT_CONCURRENCY = 4;

  /** Agent-tool server: requests per token and minute, over all processes. */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(MAX_COUNT)
  MCP_RATE_LIMIT_PER_MINUTE = 120;

  /** Agent-tool server: requests per company and minute, all its tokens together, over all processes. */
  @Transform(int)
  @IsInt()
  @Min(1)
  @Max(MAX_COUNT)
  MCP_TENANT_RATE_LIMIT_PER_MINUTE = 360;

  /**
   * Agent-tool server: host names (no scheme or port) of browser origins allowed besides
   * localhost. A request with any other `Origin` is refused (DNS-rebinding protection).
   */
  @Transform(list)
  @IsArray()
  @Matches(/^(\[[0-9a-f:]+\]|[a-z0-9.-]+)$/i, { each: true })
  MCP_ALLOWED_ORIGINS: string[] = [];

  /** API versions that have been sunset: requesting one gives 410. */
  @Transform(list)
  @IsArray()
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { each: true })
  API_SUNSET_VERSIONS: string[] = [];

  /**
   * Key that signs pagination cursors. When unset, a random key is generated once per database
   * and shared by every process through the `platform_settings` table.
   */
  @IsOptional()
  @IsString()
  @Matches(/^.{32,}$/, { message: 'CURSOR_SECRET must be at least 32 characters (openssl rand -base64 32)' })
  CURSOR_SECRET?: string = undefined;

  /**
   * Key (32 bytes) under which webhook signing secrets are encrypted at rest (AES-256-GCM).
   * Required when NODE_ENV=production; elsewhere a missing key is generated once per database
   * with a warning (see SecretsCipher).
   */
  @IsOptional()
  @IsString()
  @Matches(SECRETS_KEY, { message: 'SECRETS_KEY must be 32 bytes as 64 hex digits or base64 (openssl rand -base64 32)' })
  SECRETS_KEY?: string = undefined;

  /**
   * Keys SECRETS_KEY replaced, comma-separated: what was sealed under them still opens, until
   * `secrets:reseal` seals it all under SECRETS_KEY. For rotating SECRETS_KEY.
   */
  @Transform(list)
  @IsArray()
  @Matches(SECRETS_KEY, { each: true, message: 'SECRETS_KEY_PREVIOUS must list keys of 32 bytes, as SECRETS_KEY' })
  SECRETS_KEY_PREVIOUS: string[] = [];

  /** `production` makes missing secrets fatal instead of generated; any other spelling (`Production`, `prod`) is refused rather than read as development. */
  @IsIn(['production', 'development', 'test'])
  NODE_ENV = 'development';

  get production(): boolean {
    return this.NODE_ENV === 'production';
  }

  get errorsBaseUrl(): string {
    return (this.ERRORS_BASE_URL ?? `${this.publicBaseUrl}/errors`).replace(/\/+$/, '');
  }

  get publicBaseUrl(): string {
    return (this.PUBLIC_BASE_URL ?? DEFAULT_PUBLIC_BASE_URL).replace(/\/+$/, '');
  }

  /**
   * Set when links would name another port than the REST API's: PUBLIC_BASE_URL unset (so
   * operations.md's default, port 3000) while PORT is another.
   */
  get publicBaseUrlWarning(): string | undefined {
    if (this.PUBLIC_BASE_URL !== undefined || this.PORT === 3000 || !this.hasRole('api')) return undefined;
    return `PUBLIC_BASE_URL is unset, so links, Location headers, the OpenAPI servers and /docs name ${DEFAULT_PUBLIC_BASE_URL} while the REST API listens on port ${this.PORT}: set PUBLIC_BASE_URL to the address clients use.`;
  }

  /** `TRUST_PROXY` as express takes it: false, a hop count, or the addresses and ranges. */
  get trustProxy(): boolean | number | string {
    const value = this.TRUST_PROXY.trim();
    if (value === '') return false;
    return /^\d+$/.test(value) ? Number(value) : value;
  }

  /**
   * The development and test switches of webhook URL safety that are set (operations.md: for local
   * development and tests only); the process warns at start while any is.
   */
  get webhookSafetyRelaxed(): string[] {
    return [
      ...(this.WEBHOOK_ALLOW_HTTP ? ['WEBHOOK_ALLOW_HTTP=true (http:// URLs accepted)'] : []),
      ...(this.WEBHOOK_ALLOWED_CIDRS.length > 0 ? [`WEBHOOK_ALLOWED_CIDRS=${this.WEBHOOK_ALLOWED_CIDRS.join(',')} (URLs may resolve to these non-public ranges)`] : []),
      // Taken, not refused (a start-up that fails on a harmless list helps no one), but said: deliveries go to IPv4 addresses only.
      ...(this.WEBHOOK_ALLOWED_CIDRS.some(isIPv6Range) ? ['WEBHOOK_ALLOWED_CIDRS names IPv6 ranges, which never match: deliveries use IPv4 addresses only'] : []),
    ];
  }

  hasRole(role: AppRole): boolean {
    return this.APP_ROLES.includes(role);
  }
}

export class ConfigError extends Error {}

/** Checks of a value's kind, and those of its range, which a value of another kind fails as a consequence. */
const KIND_CHECKS = new Set(['isInt', 'isNumber']);
const RANGE_CHECKS = new Set(['min', 'max']);

/**
 * A variable's failing checks in the order they are written (class-validator applies a member's
 * decorators bottom-up and lists them so), without the range checks a value of the wrong kind
 * fails as a consequence: PORT=abc is "not an integer", not also out of range; a list's length
 * and its elements are both told.
 */
function reasons(constraints: Record<string, string>): string[] {
  const failed = Object.entries(constraints).reverse();
  const wrongKind = failed.some(([name]) => KIND_CHECKS.has(name));
  return failed.filter(([name]) => !(wrongKind && RANGE_CHECKS.has(name))).map(([, message]) => message);
}

/**
 * A port two servers of this process would both listen on: the second could never start (0 asks
 * the system for a free port, so never clashes).
 */
function portClashes(config: AppConfig): string[] {
  const servers: [string, number | undefined][] = [
    ['PORT', config.hasRole('api') ? config.PORT : undefined],
    ['MCP_PORT', config.hasRole('mcp') ? config.MCP_PORT : undefined],
    ['METRICS_PORT', config.METRICS_PORT],
  ];
  const listening = servers.filter((server): server is [string, number] => typeof server[1] === 'number' && server[1] !== 0);
  return listening.flatMap(([name, port], index) => {
    const earlier = listening.slice(0, index).find(([, other]) => other === port);
    return earlier ? [`${name}: ${port} is also ${earlier[0]}; each server of this process needs its own port`] : [];
  });
}

/** Reads and validates the configuration; unset or empty variables keep their defaults. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const defaults = new AppConfig();
  const present = Object.fromEntries(
    Object.keys(defaults)
      .filter((name) => env[name] !== undefined && env[name] !== '')
      .map((name) => [name, env[name]]),
  );
  const config = plainToInstance(AppConfig, present, { exposeDefaultValues: true });
  const errors = validateSync(config, { forbidUnknownValues: true });
  const lines = errors.map((error) => `${error.property}: ${reasons(error.constraints ?? {}).join('; ')}`);
  if (config.production && config.SECRETS_KEY === undefined) {
    lines.push('SECRETS_KEY: required when NODE_ENV=production (webhook signing secrets are encrypted under it)');
  }
  lines.push(...portClashes(config));
  if (Array.isArray(config.API_SUNSET_VERSIONS) && config.API_SUNSET_VERSIONS.includes(CURRENT_API_VERSION)) {
    lines.push(`API_SUNSET_VERSIONS: ${CURRENT_API_VERSION} is the current version, served to every request without OH-Version; it cannot be sunset`);
  }
  if (lines.length > 0) throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  return config;
}
