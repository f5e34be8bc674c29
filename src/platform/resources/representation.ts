import type { ValueTransformer } from 'typeorm';

/** RFC 3339 in UTC, as every `*_at` field is shown. */
export function timestamp(value: Date): string;
export function timestamp(value: Date | null): string | null;
export function timestamp(value: Date | null): string | null {
  return value === null ? null : value.toISOString();
}

/**
 * PostgreSQL returns `numeric` and `bigint` as strings, to keep precision JavaScript numbers
 * may lack. Quantities (litres, hours, days) stay far below 2^53 and the schema caps minor-unit
 * amounts at 2^53 − 1, so their columns read as numbers, exactly.
 */
export const numericColumn: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
