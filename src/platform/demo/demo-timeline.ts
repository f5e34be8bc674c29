import type { Faker } from '@faker-js/faker';

const MICROS_PER_DAY = 86_400_000_000;

export interface DemoTimelineOptions {
  /** How far back the first record may lie. */
  days?: number;
  /** The latest possible creation time (default: now). */
  end?: Date;
}

/**
 * Creation times for `count` demo records, oldest first, as RFC 3339 UTC strings to the
 * microsecond (a JavaScript Date keeps only milliseconds). Spread at random over the last
 * `days`, with the cases keyset pagination must survive built in: every eighth record shares
 * the previous one's microsecond, and every eighth (offset by four) follows it by 1 µs.
 */
export function demoTimeline(faker: Faker, count: number, options: DemoTimelineOptions = {}): string[] {
  const endMicros = (options.end ?? new Date()).getTime() * 1000;
  const span = (options.days ?? 365) * MICROS_PER_DAY;
  const micros = Array.from({ length: count }, () => endMicros - faker.number.int({ min: 1, max: span })).sort((a, b) => a - b);
  for (let i = 1; i < micros.length; i += 1) {
    if (i % 8 === 7) micros[i] = micros[i - 1];
    else if (i % 8 === 3) micros[i] = micros[i - 1] + 1;
  }
  return micros.map(formatMicros);
}

/** Microseconds since the epoch → `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
export function formatMicros(micros: number): string {
  const millis = Math.floor(micros / 1000);
  const fraction = String(micros - millis * 1000).padStart(3, '0');
  return new Date(millis).toISOString().replace(/Z$/, `${fraction}Z`);
}

/** A moment `minutes` after (or, when negative, before) a timeline string, never after now. */
export function demoShift(at: string, minutes: number, now = new Date()): Date {
  return new Date(Math.min(Date.parse(at) + minutes * 60_000, now.getTime()));
}

/** The calendar date (UTC, `YYYY-MM-DD`) `days` after a moment. */
export function demoDate(at: Date | string, days = 0): string {
  return new Date(new Date(at).getTime() + days * 86_400_000).toISOString().slice(0, 10);
}
