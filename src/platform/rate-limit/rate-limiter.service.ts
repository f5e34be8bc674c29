import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppConfig } from '../config/app-config.js';
import { reconnectWhenSilent } from '../health/redis-liveness.js';
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

/** What one request counted: its key's windows, and its company's once the key's allowed it. */
export interface RateLimitCount {
  key: RateLimitDecision;
  company?: RateLimitDecision;
}

/**
 * Counts in several windows in one round trip, each as rate-limiter-flexible's own script does
 * (its keys, its expiry), in order, stopping at the first that refuses: the hot path's key and
 * company windows cost one Redis call, not one per window in turn. A refusal by the company's
 * windows (those after the key's) gives the key's windows their count back in the same call, so
 * a request its company refused spends none of its key's allowance. Answers the counts reached.
 * KEYS: the counters, the key's first; ARGV: points, how many KEYS are the key's, then each
 * KEY's limit and duration in seconds.
 */
const COUNT_IN_ORDER = `
local points = tonumber(ARGV[1])
local own = tonumber(ARGV[2])
local counts = {}
for i = 1, #KEYS do
  local duration = ARGV[2 + 2 * i]
  redis.call('set', KEYS[i], 0, 'EX', duration, 'NX')
  local count = redis.call('incrby', KEYS[i], points)
  if redis.call('pttl', KEYS[i]) == -1 then redis.call('expire', KEYS[i], duration) end
  counts[i] = count
  if count > tonumber(ARGV[1 + 2 * i]) then
    if i > own then
      for j = 1, own do redis.call('decrby', KEYS[j], points) end
    end
    return counts
  end
end
return counts`;

/** Which of a window's counters a count goes to: the shared one, or its insurance. */
type CounterOf = (window: RateLimitWindow) => ClockedWindow;

type CountingRedis = Redis & { countInOrder(keyCount: number, ...keysAndArgs: (string | number)[]): Promise<number[]> };

/** A Redis command that takes longer than this counts as Redis being down. */
const REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * Counts requests per API key (by its public prefix, known before the key is checked, so the
 * count runs alongside authentication) or per client address in Redis (rate-limiter-flexible's atomic INCR+PEXPIRE script,
 * or COUNT_IN_ORDER for a cached key's windows and its company's), so every process shares one
 * counter per key and window.
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
  private readonly redis: CountingRedis;
  /** Each window's counters, by its id: shared in Redis, and the in-memory insurance the Redis one falls back to. */
  private readonly counters = new Map<string, { shared: ClockedWindow; insurance: ClockedWindow }>();
  /** Where counts go: each window's shared counter, or its insurance (a one-trip count that failed). */
  private readonly shared: CounterOf = (window) => this.counter(window).shared;
  private readonly insurance: CounterOf = (window) => this.counter(window).insurance;
  /** Whether the last one-trip count failed: its warning is logged once per run of failures. */
  private oneTripFailing = false;
  /** Which window a request falls in; tests replace it (see ClockedWindow). */
  readonly clock: Clock = systemClock();
  private readonly general: RateLimitWindow;
  /** Counted per company (by its id) beside every key's general window. */
  readonly companyWindow: RateLimitWindow;
  private redisAvailable = true;
  private readonly stopLivenessChecks: () => void;

  constructor(@Inject(AppConfig) private readonly config: AppConfig) {
    this.general = defaultWindow(config.RATE_LIMIT_PER_SECOND);
    this.companyWindow = companyWindow(config.TENANT_RATE_LIMIT_PER_SECOND);
    this.redis = new Redis(config.REDIS_URL, {
      connectionName: `${config.REDIS_PREFIX}:rate-limit`,
      // Fail fast instead of queueing commands while disconnected: the insurance limiter answers.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A count with no answer was decided by the insurance limiter; sent again, it would count twice.
      autoResendUnfulfilledCommands: false,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      // ioredis otherwise holds a timer for 2 s at shutdown when the socket had already failed.
      disconnectTimeout: 500,
    }) as CountingRedis;
    this.redis.defineCommand('countInOrder', { lua: COUNT_IN_ORDER });
    this.stopLivenessChecks = reconnectWhenSilent(this.redis);
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
  consume(windows: readonly RateLimitWindow[], key: string, points = 1): Promise<RateLimitDecision> {
    return this.countEach(windows, key, points, this.shared);
  }

  private async countEach(windows: readonly RateLimitWindow[], key: string, points: number, counterOf: CounterOf): Promise<RateLimitDecision> {
    const states: WindowState[] = [];
    const windowNumbers: number[] = [];
    for (const window of windows) {
      const limiter = counterOf(window);
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
   * Counts a request of `key` in `windows` and then, if they allow it and its company is known
   * (`companyId`), in its company's window: in one Redis round trip while Redis answers,
   * otherwise window by window as `consume` does (the insurance limiters answering). A
   * refusal by the company gives the key's windows their count back.
   */
  async consumeWithCompany(windows: readonly RateLimitWindow[], key: string, companyId?: string): Promise<RateLimitCount> {
    if (companyId !== undefined && this.redis.status === 'ready') {
      try {
        const count = await this.countInOneTrip(windows, key, companyId);
        this.oneTripFailing = false;
        return count;
      } catch (error) {
        if (!this.oneTripFailing) this.logger.warn(`Counting in Redis failed, this request is counted per process: ${(error as Error).message}`);
        this.oneTripFailing = true;
        // Counted by the insurance limiters at once, as when Redis is down: asking Redis again would
        // wait out another timeout, and count twice a call that ran but answered too late.
        return this.countInTurn(windows, key, companyId, this.insurance);
      }
    }
    return this.countInTurn(windows, key, companyId, this.shared);
  }

  /** Counts a request its key's windows allowed (`own`, counted for `key`) in its company's window; refused there, the key's count is given back. */
  consumeCompany(own: RateLimitDecision, key: string, companyId: string): Promise<RateLimitDecision> {
    return this.countCompany(own, key, companyId, this.shared);
  }

  /** `windows` one after the other, then the company's window once they allow the request, each on the counter `counterOf` gives. */
  private async countInTurn(windows: readonly RateLimitWindow[], key: string, companyId: string | undefined, counterOf: CounterOf): Promise<RateLimitCount> {
    const own = await this.countEach(windows, key, 1, counterOf);
    if (!own.allowed || companyId === undefined) return { key: own };
    return { key: own, company: await this.countCompany(own, key, companyId, counterOf) };
  }

  private async countCompany(own: RateLimitDecision, key: string, companyId: string, counterOf: CounterOf): Promise<RateLimitDecision> {
    const company = await this.countEach([this.companyWindow], companyId, 1, counterOf);
    if (!company.allowed) void this.giveBack(own, key, 1, counterOf);
    return company;
  }

  private async countInOneTrip(windows: readonly RateLimitWindow[], key: string, companyId: string): Promise<RateLimitCount> {
    const slots = [...windows.map((window) => ({ window, key })), { window: this.companyWindow, key: companyId }].map(({ window, key }) => {
      const limiter = this.shared(window);
      const number = limiter.current();
      return { window, limiter, number, storeKey: limiter.storeKey(key, number) };
    });
    const limits = slots.flatMap(({ window }) => [window.points, window.durationSeconds]);
    const counts = await this.redis.countInOrder(slots.length, ...slots.map((slot) => slot.storeKey), 1, windows.length, ...limits);
    // The decision of slots [from, to), over those the script reached.
    const decision = (from: number, to: number): RateLimitDecision => {
      const reached = slots.slice(from, Math.min(to, counts.length));
      return {
        allowed: reached.every(({ window }, index) => counts[from + index] <= window.points),
        states: reached.map(({ window, limiter, number }, index) => ({ window, remaining: Math.max(window.points - counts[from + index], 0), resetMs: limiter.resetMs(number) })),
        windowNumbers: reached.map(({ number }) => number),
      };
    };
    const own = decision(0, windows.length);
    return own.allowed ? { key: own, company: decision(windows.length, slots.length) } : { key: own };
  }

  /**
   * Gives back what `consume` counted for `key`: the request turned out not to be the key
   * holder's (authentication failed) or was refused for its scopes, and neither counts. A
   * refused consume counted its points too (in the windows it reached), which this gives back.
   * Each goes back to the window it was counted in: given to the next one, after the clock
   * turned, it would raise that window's allowance.
   */
  refund(decision: RateLimitDecision, key: string, points = 1): Promise<void> {
    return this.giveBack(decision, key, points, this.shared);
  }

  private async giveBack(decision: RateLimitDecision, key: string, points: number, counterOf: CounterOf): Promise<void> {
    await Promise.all(decision.states.map((state, index) => counterOf(state.window).reward(key, points, decision.windowNumbers[index]).catch(() => undefined)));
  }

  /** What a decision counted in the windows of a route's own limit, without the general window (counted first, see windowsFor). */
  routeShare(decision: RateLimitDecision): RateLimitDecision {
    return { ...decision, states: decision.states.slice(1), windowNumbers: decision.windowNumbers.slice(1) };
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopLivenessChecks();
    if (this.redis.status === 'ready') await this.redis.quit();
    else this.redis.disconnect();
  }

  private counter(window: RateLimitWindow): { shared: ClockedWindow; insurance: ClockedWindow } {
    let counter = this.counters.get(window.id);
    if (!counter) {
      // Each window's counter lives for one window length: the next window has a key of its own.
      const options = { keyPrefix: `${this.config.REDIS_PREFIX}:ratelimit:${window.id}`, points: window.points, duration: window.durationSeconds };
      const insurance = new RateLimiterMemory(options);
      const shared = new RateLimiterRedis({ ...options, storeClient: this.redis, rejectIfRedisNotReady: true, insuranceLimiter: insurance });
      const durationMs = window.durationSeconds * 1000;
      counter = { shared: new ClockedWindow(shared, durationMs, this.clock), insurance: new ClockedWindow(insurance, durationMs, this.clock) };
      this.counters.set(window.id, counter);
    }
    return counter;
  }
}
