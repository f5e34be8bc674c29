/** Attempts per delivery (spec section 8): after the 8th failure the delivery is `dead`. */
export const MAX_ATTEMPTS = 8;

/** How far a wait may stray from the schedule, either way, so retries of many deliveries spread out. */
const JITTER = 0.2;

/**
 * The wait before the next attempt after attempt `attempt` (1-based) failed, or `null` when it
 * was the last. The wait is the schedule's entry ± 20 %, so retries of many deliveries spread
 * out. A `Retry-After` the receiver sent with a 429 or 503 lengthens it to that time, up to
 * `longestHoldMs` (WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS, the longest its endpoint is held back too) or
 * twice the scheduled wait, whichever is longer: a receiver can slow retries down, not stop them,
 * and never hurry them.
 */
export function retryDelayMs(
  attempt: number,
  schedule: readonly number[],
  random: () => number = Math.random,
  retryAfter?: { ms: number; longestHoldMs: number },
): number | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  const base = schedule[Math.min(attempt, schedule.length) - 1];
  const wait = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  if (retryAfter === undefined) return wait;
  return Math.max(wait, Math.min(retryAfter.ms, Math.max(retryAfter.longestHoldMs, 2 * wait)));
}

/**
 * The `Retry-After` of an answer, in milliseconds from `now`, when the status is one that may
 * carry it (429, 503) and the value is readable: delay-seconds or an HTTP date.
 */
export function retryAfterMs(status: number, header: string | undefined, now: Date): number | undefined {
  if ((status !== 429 && status !== 503) || header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now.getTime());
}
