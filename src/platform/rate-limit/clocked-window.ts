import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';

/** Where the rate limiter's time comes from; tests replace `now` to move between windows without waiting. */
export interface Clock {
  now(): number;
}

export function systemClock(): Clock {
  return { now: () => Date.now() };
}

/**
 * A window fixed to the clock: window n covers [n·duration, (n+1)·duration). The counter of
 * rate-limiter-flexible is kept per API key and window number, so which window a request falls
 * in, and how long until it resets, come from the clock and not from when the first request
 * happened to arrive. Same methods and answers as the counter it wraps (`consume` resolves or
 * rejects with a RateLimiterRes, `reward` gives points back), with `msBeforeNext` measured to
 * the end of the window.
 */
export class ClockedWindow {
  constructor(
    private readonly counter: RateLimiterAbstract,
    private readonly durationMs: number,
    private readonly clock: Clock,
  ) {}

  /** The number of the window the clock is in now. */
  current(): number {
    return Math.floor(this.clock.now() / this.durationMs);
  }

  /** Milliseconds until window `index` ends. */
  resetMs(index: number): number {
    return Math.max(0, (index + 1) * this.durationMs - this.clock.now());
  }

  /** The Redis key of `key`'s counter in window `index`, as the wrapped counter names it. */
  storeKey(key: string, index: number): string {
    return this.counter.getKey(`${key}:${index}`);
  }

  /** Counts in window `index` (by default the current one). */
  async consume(key: string, points = 1, index = this.current()): Promise<RateLimiterRes> {
    const resetMs = this.resetMs(index);
    try {
      const counted = await this.counter.consume(`${key}:${index}`, points);
      return new RateLimiterRes(counted.remainingPoints, resetMs, counted.consumedPoints, counted.isFirstInDuration);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw new RateLimiterRes(rejection.remainingPoints, resetMs, rejection.consumedPoints, false);
      throw rejection;
    }
  }

  /** Gives points back in window `index`: the one they were counted in, whatever the clock says now. */
  reward(key: string, points = 1, index = this.current()): Promise<RateLimiterRes> {
    return this.counter.reward(`${key}:${index}`, points);
  }
}
