import { parseRfc3339DateTime } from './rfc3339.js';

describe('RFC 3339 date-times', () => {
  it.each([
    ['2026-05-16T08:00:00Z', '2026-05-16T08:00:00.000Z'],
    ['2026-05-16t08:00:00z', '2026-05-16T08:00:00.000Z'],
    ['2026-05-16T08:00:00.123456Z', '2026-05-16T08:00:00.123Z'],
    ['2026-05-16T10:00:00+02:00', '2026-05-16T08:00:00.000Z'],
    ['2024-02-29T23:59:59-23:59', '2024-03-01T23:58:59.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
  ])('reads %s', (value, iso) => {
    expect(parseRfc3339DateTime(value)?.toISOString()).toBe(iso);
  });

  it.each([
    ['2026-02-30T00:00:00Z', 'a day the month does not have (new Date rolls it over to March 2)'],
    ['2026-02-29T00:00:00Z', 'February 29 of a common year'],
    ['2026-04-31T00:00:00Z', 'April 31'],
    ['2026-13-01T00:00:00Z', 'month 13'],
    ['2026-01-01T24:00:00Z', 'hour 24 (new Date reads the next day)'],
    ['2026-01-01T00:60:00Z', 'minute 60'],
    ['2026-01-01T00:00:60Z', 'a leap second'],
    ['2026-01-01T00:00:00+24:00', 'an offset of 24 hours'],
    ['2026-01-01T00:00:00+01:60', 'an offset minute of 60'],
    ['0000-01-01T00:00:00Z', 'year 0'],
    ['2026-01-01', 'a bare date'],
    ['2026-01-01T00:00:00', 'no time zone'],
    ['+002026-01-01T00:00:00Z', 'an expanded year'],
    ['1e3', 'a number'],
    [5, 'not a string'],
  ] as [unknown, string][])('refuses %s: %s', (value) => {
    expect(parseRfc3339DateTime(value)).toBeUndefined();
  });
});
