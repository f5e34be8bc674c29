const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** An RFC 3339 date-time with its time zone (section 5.6, `T` and `Z` in either case) as a Date; undefined for anything else, a bare date included. */
export function parseRfc3339DateTime(value: unknown): Date | undefined {
  if (typeof value !== 'string' || !DATE_TIME.test(value)) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
