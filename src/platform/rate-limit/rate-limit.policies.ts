/**
 * Every request limit of the REST API, in one place. Counted per API key (and the company's
 * general one per company) in Redis, so all processes share them. A window is a fixed interval of the clock: at most `points` requests in
 * each `durationSeconds` (window n covers [n·duration, (n+1)·duration) since the Unix epoch).
 */
export interface RateLimitWindow {
  /** Name in the RateLimit-Policy / RateLimit headers and in the Redis key. */
  readonly id: string;
  readonly points: number;
  readonly durationSeconds: number;
}

/** The general limit on every authenticated route: `RATE_LIMIT_PER_SECOND` per API key. */
export function defaultWindow(perSecond: number): RateLimitWindow {
  return { id: 'default', points: perSecond, durationSeconds: 1 };
}

/**
 * The general limit of a whole company, all its keys together: `TENANT_RATE_LIMIT_PER_SECOND`,
 * so that more keys do not buy a company more of the service.
 */
export function companyWindow(perSecond: number): RateLimitWindow {
  return { id: 'company', points: perSecond, durationSeconds: 1 };
}

/** The agent-tool server's limit: `MCP_RATE_LIMIT_PER_MINUTE` per token, shortcuts included. */
export function mcpWindow(perMinute: number): RateLimitWindow {
  return { id: 'mcp', points: perMinute, durationSeconds: 60 };
}

/** The agent-tool server's limit of a whole company, all its tokens together: `MCP_TENANT_RATE_LIMIT_PER_MINUTE`. */
export function mcpCompanyWindow(perMinute: number): RateLimitWindow {
  return { id: 'mcp_company', points: perMinute, durationSeconds: 60 };
}

/**
 * Limits a route adds with `@RateLimit(name)`, on top of the general one (spec section 8). A
 * request must pass every window of its limit.
 */
export const NAMED_RATE_LIMITS = {
  /** Single delivery replays: 60 per minute per key. */
  webhook_replay: [{ id: 'webhook_replay', points: 60, durationSeconds: 60 }],
  /** replay_failed calls: 5 per minute and 30 per hour per key. */
  webhook_replay_failed: [
    { id: 'webhook_replay_failed', points: 5, durationSeconds: 60 },
    { id: 'webhook_replay_failed_hourly', points: 30, durationSeconds: 3600 },
  ],
} as const satisfies Record<string, readonly RateLimitWindow[]>;

export type RateLimitName = keyof typeof NAMED_RATE_LIMITS;
