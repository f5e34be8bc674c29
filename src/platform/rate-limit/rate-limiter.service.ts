import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppConfig } from '../config/app-config.js';
import { type Clock, ClockedWindow, systemClock } from './clocked-window.js';
import type { WindowState } from './rate-limit-headers.js';
import { companyWindow, defaultWindow, NAMED_RATE_LIMITS, type RateLimitName, type RateLimitWindow } from './rate-limit.policies.js';

export interface RateLimitDecision {
  allowed: boolean;
  /** The windows counted for this request, in order; the last one refused it when not allowed. */
  states: WindowState[];
  /** The number of each counted window (aligned with `states`), so a refund goes where the count went. */
  windowNumbers: number[];
}

/** A Redis command that takes longer than this counts as Redis being down. */
const REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * Counts requests per API key (by its public prefix, known before the key is checked, so the
 * count runs alongside authentication) or per client address in Redis (rate-limiter-flexible's atomic INCR+PEXPIRE script),
 * so every process shares one counter per key and window.
 *
 * Redis down: fail open to a per-process limit. Each Redis limiter has an in-memory insurance
 * limiter with the same numbers; while Redis is unreachable (not connected, or a command
 * slower than REDIS_COMMAND_TIMEOUT_MS) requests are counted there. Limits then hold per
 * process instead of across processes, the API keeps answering, and no request fails because of
 * Redis.
 */
@Injectable()
export class RateLimiterService implements OnApplicationShutdown {
  private readonly logger = new Logger(RateLimiterService.name);
  private readonly redis: Redis;
  private readonly limiters = new Map<string, ClockedWindow>();
  /** Which window a request falls in; tests replace it (see ClockedWindow). */
  readonly clock: Clock = systemClock();
  private readonly general: RateLimitWindow;
  /** Counted per company (by its id) beside every key's general window. */
  readonly companyWindow: RateLimitWindow;
  private redisAvailable = true;

  constructor(@Inject(AppConfig) private readonly config: AppConfig) {
    this.general = defaultWindow(config.RATE_LIMIT_PER_SECOND);
    this.companyWindow = companyWindow(config.TENANT_RATE_LIMIT_PER_SECOND);
    this.redis = new Redis(config.REDIS_URL, {
      connectionName: `${config.REDIS_PREFIX}:rate-limit`,
      // Fail fast instead of queueing commands while disconnected: the insurance limiter answers.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      // ioredis otherwise holds a timer for 2 s at shutdown when the socket had already failed.
      disconnectTimeout: 500,
    });
    this.redis.on('error', (error: Error) => {
      if (this.redisAvailable) this.logger.warn(`Redis unreachable, rate limits now count per process: ${error.message}`);
      this.redisAvailable = false;
    });
    this.redis.on('ready', () => {
      if (!this.redisAvailable) this.logger.log('Redis reachable again, rate limits are shared again');
      this.redisAvailable = true;
    });
  }

  /** The windows a route is subject to: the general limit, then those of its named limit. */
  windowsFor(name?: RateLimitName): RateLimitWindow[] {
    return name ? [this.general, ...NAMED_RATE_LIMITS[name]] : [this.general];
  }

  /**
   * Counts `points` requests of `key` (one, or each message of a JSON-RPC batch) against each
   * window in turn and stops at the first that refuses them, so a refused request does not use
   * up the later (longer) windows.
   */
  async consume(windows: readonly RateLimitWindow[], key: string, points = 1): Promise<RateLimitDecision> {
    const states: WindowState[] = [];
    const windowNumbers: number[] = [];
    for (const window of windows) {
      const limiter = this.limiter(window);
      const number = limiter.current();
      windowNumbers.push(number);
      try {
        const result = await limiter.consume(key, points, number);
        states.push({ window, remaining: result.remainingPoints, resetMs: result.msBeforeNext });
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        states.push({ window, remaining: 0, resetMs: rejection.msBeforeNext });
        return { allowed: false, states, windowNumbers };
      }
    }
    return { allowed: true, states, windowNumbers };
  }

  /**
   * Gives back what `consume` counted for `key`: the request turned out not to be the key
   * holder's (authentication failed) or was refused for its scopes, and neither counts. A
   * refused consume counted its points too (in the windows it reached), which this gives back.
   * Each goes back to the window it was counted in: given to the next one, after the clock
   * turned, it would raise that window's allowance.
   */
  async refund(decision: RateLimitDecision, key: string, points = 1): Promise<void> {
    await Promise.all(decision.states.map((state, index) => this.limiter(state.window).reward(key, points, decision.windowNumbers[index]).catch(() => undefined)));
  }

  /** What a decision counted in the windows of a route's own limit, without the general window (counted first, see windowsFor). */
  routeShare(decision: RateLimitDecision): RateLimitDecision {
    return { ...decision, states: decision.states.slice(1), windowNumbers: decision.windowNumbers.slice(1) };
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.redis.status === 'ready') await this.redis.quit();
    else this.redis.disconnect();
  }

  private limiter(window: RateLimitWindow): ClockedWindow {
    let limiter = this.limiters.get(window.id);
    if (!limiter) {
      // Each window's counter lives for one window length: the next window has a key of its own.
      const options = { keyPrefix: `${this.config.REDIS_PREFIX}:ratelimit:${window.id}`, points: window.points, duration: window.durationSeconds };
      const counter = new RateLimiterRedis({
        ...options,
        storeClient: this.redis,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory(options),
      });
      limiter = new ClockedWindow(counter, window.durationSeconds * 1000, this.clock);
      this.limiters.set(window.id, limiter);
    }
    return limiter;
  }
}
