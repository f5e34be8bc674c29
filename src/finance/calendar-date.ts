import { isCalendarDate } from '../platform/validation/rfc3339.js';

/**
 * Calendar dates (`YYYY-MM-DD`) as the API shows them. Company time is UTC, so "today" is the
 * UTC date. Dates compare correctly as strings because the format is fixed-width.
 */
const FORMAT = /^(\d{4})-(\d{2})-(\d{2})$/;

export type DateCheck = 'ok' | 'invalid_format' | 'invalid_date';

export function checkCalendarDate(value: string): DateCheck {
  const match = FORMAT.exec(value);
  if (!match) return 'invalid_format';
  const [year, month, day] = match.slice(1).map(Number);
  return isCalendarDate(year, month, day) ? 'ok' : 'invalid_date';
}

export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number);
  const result = new Date(0);
  result.setUTCFullYear(year, month - 1, day + days);
  return result.toISOString().slice(0, 10);
}

export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

export function yearOf(date: string): number {
  return Number(date.slice(0, 4));
}
