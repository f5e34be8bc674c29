/** RFC 3339 in UTC, as every `*_at` field is shown. */
export function timestamp(value: Date): string;
export function timestamp(value: Date | null): string | null;
export function timestamp(value: Date | null): string | null {
  return value === null ? null : value.toISOString();
}
