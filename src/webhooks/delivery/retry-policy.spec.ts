import fc from 'fast-check';
import { MAX_ATTEMPTS, retryAfterMs, retryDelayMs } from './retry-policy.js';

const schedule = [1000, 2000, 3000, 4000, 5000, 6000, 7000];

describe('retryDelayMs', () => {
  it('waits the schedule entry of the failed attempt, within ±20 %', () => {
    expect(retryDelayMs(1, schedule, () => 0)).toBe(800);
    expect(retryDelayMs(1, schedule, () => 0.5)).toBe(1000);
    expect(retryDelayMs(1, schedule, () => 0.999999)).toBe(1200);
    expect(retryDelayMs(7, schedule, () => 0.5)).toBe(7000);
  });

  it('ends after the 8th attempt', () => {
    expect(MAX_ATTEMPTS).toBe(8);
    expect(retryDelayMs(8, schedule, () => 0.5)).toBeNull();
  });

  it('keeps any jitter within ±20 % of the schedule', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, r) => {
        const wait = retryDelayMs(attempt, schedule, () => r)!;
        const base = schedule[attempt - 1];
        return wait >= base * 0.8 - 1 && wait <= base * 1.2 + 1;
      }),
    );
  });

  it('waits for a Retry-After, up to the longest hold or twice the scheduled wait, never less than the schedule', () => {
    const hold = (ms: number, longestHoldMs = 600_000) => retryDelayMs(2, schedule, () => 0.5, { ms, longestHoldMs });
    expect(hold(3000)).toBe(3000);
    expect(hold(500)).toBe(2000);
    expect(hold(60_000)).toBe(60_000);
    expect(hold(3_600_000)).toBe(600_000);
    expect(hold(60_000, 1)).toBe(4000);
    expect(hold(3000, 1)).toBe(3000);
  });
});

describe('retryAfterMs', () => {
  const now = new Date('2026-05-16T10:00:00Z');

  it('reads delay-seconds and HTTP dates on 429 and 503', () => {
    expect(retryAfterMs(429, '3', now)).toBe(3000);
    expect(retryAfterMs(503, 'Sat, 16 May 2026 10:00:07 GMT', now)).toBe(7000);
    expect(retryAfterMs(503, 'Sat, 16 May 2026 09:00:00 GMT', now)).toBe(0);
  });

  it('ignores it on other statuses and when unreadable', () => {
    expect(retryAfterMs(500, '3', now)).toBeUndefined();
    expect(retryAfterMs(429, 'soon', now)).toBeUndefined();
    expect(retryAfterMs(429, undefined, now)).toBeUndefined();
  });

  // Before: Date.parse read asctime, and any text without a zone, in the process's time zone
  // (a worker in St John's held an endpoint 10 minutes for a 57 s Retry-After).
  it("reads RFC 9110's obsolete forms as GMT, and no date without a zone", () => {
    expect(retryAfterMs(503, 'Sat May 16 10:02:00 2026', now)).toBe(120_000);
    expect(retryAfterMs(503, 'Sat May  6 10:02:00 2026', now)).toBe(0);
    expect(retryAfterMs(503, 'Saturday, 16-May-26 10:02:00 GMT', now)).toBe(120_000);
    for (const zoneless of ['Sat, 16 May 2026 10:02:00', '2026-05-16T10:02:00', '2026-05-16T10:02:00Z', 'May 16 2026 10:02:00 GMT']) {
      expect(retryAfterMs(503, zoneless, now)).toBeUndefined();
    }
  });
});
