import { addDays, checkCalendarDate, todayUtc } from './calendar-date.js';

describe('calendar dates', () => {
  it.each([
    ['2026-05-16', 'ok'],
    ['2024-02-29', 'ok'],
    ['2000-02-29', 'ok'],
    ['1900-02-29', 'invalid_date'],
    ['2026-02-29', 'invalid_date'],
    ['2026-04-31', 'invalid_date'],
    ['2026-13-01', 'invalid_date'],
    ['2026-00-10', 'invalid_date'],
    ['0000-01-01', 'invalid_date'],
    ['2026-5-16', 'invalid_format'],
    ['2026-05-16T00:00:00Z', 'invalid_format'],
    [' 2026-05-16', 'invalid_format'],
    ['２０２６-05-16', 'invalid_format'],
  ])('%s is %s', (value, expected) => {
    expect(checkCalendarDate(value)).toBe(expected);
  });

  it('adds days across month, leap-day and year ends', () => {
    expect(addDays('2026-01-25', 14)).toBe('2026-02-08');
    expect(addDays('2024-02-20', 14)).toBe('2024-03-05');
    expect(addDays('2026-12-25', 14)).toBe('2027-01-08');
    expect(addDays('0099-12-31', 1)).toBe('0100-01-01');
  });

  it('takes today in UTC', () => {
    expect(todayUtc(new Date('2026-05-16T23:59:59-05:00'))).toBe('2026-05-17');
  });
});
