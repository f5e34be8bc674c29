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
  const date = httpDate(value);
  return date === undefined ? undefined : Math.max(0, date - now.getTime());
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/** RFC 9110 5.6.7's three forms: IMF-fixdate, and the obsolete RFC 850 and asctime ones. */
const IMF_FIXDATE = new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`);
const RFC_850 = new RegExp(`^${LONG_DAY}, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`);
const ASCTIME = new RegExp(`^${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4}$`);

/**
 * An HTTP date's time, or undefined for any other text. Every form is GMT, asctime's without
 * saying so: `Date.parse` read that one, and any other text without a zone, in the process's
 * time zone (a worker in St John's held an endpoint 10 minutes for a 57 s Retry-After).
 */
function httpDate(value: string): number | undefined {
  const text = IMF_FIXDATE.test(value) || RFC_850.test(value) ? value : ASCTIME.test(value) ? `${value} GMT` : undefined;
  const time = text === undefined ? NaN : Date.parse(text);
  return Number.isNaN(time) ? undefined : time;
}
