import { Faker, base, en } from '@faker-js/faker';
import { demoShift, demoTimeline, formatMicros } from './demo-timeline.js';

const faker = (seed: number) => new Faker({ locale: [en, base], seed });
const toMicros = (at: string) => Date.parse(at) * 1000 + Number(at.slice(23, 26));

describe('demoTimeline', () => {
  it('gives oldest-first RFC 3339 UTC timestamps to the microsecond within the window', () => {
    const end = new Date('2026-05-16T12:00:00.000Z');
    const times = demoTimeline(faker(1), 200, { days: 30, end });
    expect(times).toHaveLength(200);
    for (const at of times) {
      expect(at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      expect(toMicros(at)).toBeLessThan(end.getTime() * 1000);
      expect(toMicros(at)).toBeGreaterThanOrEqual((end.getTime() - 30 * 86_400_000) * 1000);
    }
    const micros = times.map(toMicros);
    expect(micros).toEqual([...micros].sort((a, b) => a - b));
  });

  it('builds in same-microsecond ties and 1 µs neighbours', () => {
    const micros = demoTimeline(faker(2), 16).map(toMicros);
    expect(micros[7]).toBe(micros[6]);
    expect(micros[15]).toBe(micros[14]);
    expect(micros[3] - micros[2]).toBe(1);
    expect(micros[11] - micros[10]).toBe(1);
  });

  it('is the same for the same seed', () => {
    const end = new Date('2026-01-01T00:00:00Z');
    expect(demoTimeline(faker(3), 50, { end })).toEqual(demoTimeline(faker(3), 50, { end }));
  });
});

describe('formatMicros and demoShift', () => {
  it('formats microseconds without losing the sub-millisecond digits', () => {
    expect(formatMicros(1_763_770_000_123_456)).toBe('2025-11-22T00:06:40.123456Z');
    expect(formatMicros(1_763_770_000_000_007)).toBe('2025-11-22T00:06:40.000007Z');
  });

  it('shifts by minutes but never past now', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(demoShift('2025-12-31T23:00:00.000001Z', 30, now).toISOString()).toBe('2025-12-31T23:30:00.000Z');
    expect(demoShift('2025-12-31T23:00:00.000001Z', 120, now)).toEqual(now);
    expect(demoShift('2025-12-31T23:00:00.000001Z', -60, now).toISOString()).toBe('2025-12-31T22:00:00.000Z');
  });
});
