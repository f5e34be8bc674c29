import type { ValueTransformer } from 'typeorm';

/**
 * bigint money columns as JS numbers: the schema caps every amount at 2^53 - 1, so the
 * conversion is exact (node-postgres hands bigint over as text).
 */
export const minorUnits: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
