const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/i;

/**
 * An RFC 3339 date-time with its time zone (section 5.6, `T` and `Z` in either case) as a Date;
 * undefined for anything else, a bare date included. Every field is checked against its range
 * (section 5.7), since `new Date` quietly rolls 2026-02-30 over to March 2 and 24:00 to the next
 * day. A leap second (`:60`) is refused: a Date cannot hold it.
 */
export function parseRfc3339DateTime(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const match = DATE_TIME.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const [offsetHour, offsetMinute] = [match[8], match[9]].map((field) => Number(field ?? 0));
  if (!isCalendarDate(year, month, day) || hour > 23 || minute > 59 || second > 59 || offsetHour > 23 || offsetMinute > 59) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * An RFC 3339 date-time as PostgreSQL reads it exactly: UTC, to the microsecond (a Date keeps
 * milliseconds only), a finer fraction rounded up (so `>=` keeps its meaning against rows kept to
 * the microsecond); `-infinity` or `infinity` when an offset moves it out of years 1-9999, which
 * PostgreSQL's text input cannot take. Undefined for anything parseRfc3339DateTime refuses.
 */
export function rfc3339ToPostgres(value: unknown): string | undefined {
  const date = parseRfc3339DateTime(value);
  if (!date) return undefined;
  const fraction = (DATE_TIME.exec(value as string)![7] ?? '.').slice(1);
  let micros = Number(fraction.slice(3, 6).padEnd(3, '0'));
  if (/[1-9]/.test(fraction.slice(6))) micros += 1;
  if (micros === 1000) {
    date.setTime(date.getTime() + 1);
    micros = 0;
  }
  const year = date.getUTCFullYear();
  if (year < 1) return '-infinity';
  if (year > 9999) return 'infinity';
  return `${date.toISOString().slice(0, 23)}${String(micros).padStart(3, '0')}Z`;
}

/** Whether year-month-day names a day of the (proleptic Gregorian) calendar, year 1 onwards. */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
