import type { TenantScope } from '../tenancy/tenant-data.js';

/**
 * `{value: count}` of one company's rows of `table` grouped by `column`. Table and column are
 * names from the code's own summary declarations, never from input.
 */
export async function countBy(scope: TenantScope, table: string, column: string, where = 'TRUE'): Promise<Record<string, number>> {
  const rows = await scope.query<{ value: string; count: number }>(
    `SELECT ${column} AS value, count(*)::int AS count FROM ${table} WHERE tenant_id = $1 AND (${where}) GROUP BY ${column} ORDER BY ${column}`,
  );
  return Object.fromEntries(rows.map((row) => [row.value, row.count]));
}

/** The sum of a `countBy` answer. */
export function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, count) => sum + count, 0);
}
