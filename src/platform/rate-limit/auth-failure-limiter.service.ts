import { Inject, Injectable } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import { AppConfig } from '../config/app-config.js';
import { DomainException } from '../errors/domain.exception.js';
import { Metrics } from '../metrics/metrics.service.js';
import { rateLimited, rateLimitPolicyHeader } from './rate-limit-headers.js';
import type { RateLimitWindow } from './rate-limit.policies.js';
import { RateLimiterService } from './rate-limiter.service.js';

/** Addresses remembered as blocked; beyond this the oldest is forgotten (it is still counted in Redis). */
const MAX_BLOCKED = 10_000;

/**
 * Failed authentications per client address: AUTH_FAILURES_PER_MINUTE, counted in Redis so
 * every process adds to one counter. The failure that passes the limit is answered 429 instead
 * of 401, and the process remembers the address as blocked until the window ends: every later
 * request from it is answered 429 before its key is looked up, unless its key is one this
 * process holds in its cache and it verifies (AuthGuard): a key in use keeps working beside a
 * client failing from the same address (a shared NAT); any other, the agent-tool server's
 * tokens included, waits for the window's end. A
 * process that has not yet seen a failure of a blocked address learns of the block on its
 * first one, so with N processes at most N−1 attempts beyond the limit are examined per window.
 */
@Injectable()
export class AuthFailureLimiter {
  readonly window: RateLimitWindow;
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    @Inject(AppConfig) config: AppConfig,
    @Inject(RateLimiterService) private readonly limiter: RateLimiterService,
    @Inject(Metrics) private readonly metrics: Metrics,
  ) {
    this.window = { id: 'auth_failures', points: config.AUTH_FAILURES_PER_MINUTE, durationSeconds: 60 };
  }

  /** Throws the 429 when this process knows `address` is blocked. Free while nothing is blocked. */
  assertNotBlocked(addressOf: () => string): void {
    const refusal = this.blocked(addressOf);
    if (refusal) throw refusal;
  }

  /** The 429 to answer when this process knows `address` is blocked, else undefined. Free while nothing is blocked. */
  blocked(addressOf: () => string): DomainException | undefined {
    if (this.blockedUntil.size === 0) return undefined;
    const address = clientNetwork(addressOf());
    const until = this.blockedUntil.get(address);
    if (until === undefined) return undefined;
    const left = until - Date.now();
    if (left <= 0) {
      this.blockedUntil.delete(address);
      return undefined;
    }
    return this.refusal(left);
  }

  /** Counts a failed authentication of `address`; answers what to throw: the failure itself, or the 429 once over the limit. */
  async failed(clientAddress: string, failure: unknown): Promise<unknown> {
    const address = clientNetwork(clientAddress);
    const decision = await this.limiter.consume([this.window], address);
    if (decision.allowed) return failure;
    const resetMs = decision.states[0].resetMs;
    if (this.blockedUntil.size >= MAX_BLOCKED) this.blockedUntil.delete(this.blockedUntil.keys().next().value!);
    this.blockedUntil.set(address, Date.now() + resetMs);
    return this.refusal(resetMs);
  }

  private refusal(resetMs: number): DomainException {
    this.metrics.rateLimitRefusals.inc({ limit: this.window.id });
    return rateLimited(
      resetMs,
      (retryAfter) => `Too many failed authentications from this address (${this.window.points} per minute); retry after ${retryAfter} s.`,
      { 'RateLimit-Policy': rateLimitPolicyHeader([this.window]) },
    );
  }
}

/**
 * What failures are counted by: an IPv4 address (an IPv4-mapped IPv6 one as its IPv4 address),
 * or an IPv6 address's /64, the network one subscriber holds: counted per address, a single
 * host could try 2^64 times the limit. Anything unparsable is counted as it is.
 */
function clientNetwork(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${(parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
}
