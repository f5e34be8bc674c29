import type { EntityTarget } from 'typeorm';
import type { TenantOwned, TenantScope } from '../tenancy/tenant-data.js';

/**
 * A row to insert: entity properties, timestamps also as RFC 3339 strings (for microseconds).
 * Never the company: every row belongs to the scope's.
 */
export type InsertRow<E> = { [K in Exclude<keyof E, 'tenantId'>]?: E[K] | (E[K] extends Date | null ? string : never) };

/** PostgreSQL's limit on bind parameters of one statement. */
const MAX_PARAMETERS = 65_535;

/**
 * Multi-row INSERT of demo records, a few statements for any count. TypeORM's own insert would
 * turn timestamp strings into Dates and lose their microseconds, which the pagination ties in
 * demo data depend on. A property a row leaves out takes the column default; `tenant_id` is the
 * scope's company (`$1`) in every row.
 */
export async function insertRows<E extends TenantOwned>(scope: TenantScope, target: EntityTarget<E>, rows: readonly InsertRow<E>[]): Promise<void> {
  if (rows.length === 0) return;
  const properties = [...new Set(rows.flatMap((row) => Object.keys(row)))].filter((property) => property !== 'tenantId');
  const columns = properties.map((property) => {
    const column = scope.columnName(target, property);
    if (!column) throw new Error(`${scope.tableName(target)} has no column for property ${property}`);
    return column;
  });
  const perStatement = Math.floor((MAX_PARAMETERS - 1) / Math.max(1, columns.length));
  for (let start = 0; start < rows.length; start += perStatement) {
    const parameters: unknown[] = [];
    const tuples = rows.slice(start, start + perStatement).map((row) => {
      const cells = properties.map((property) => {
        const value: unknown = row[property as keyof InsertRow<E>];
        if (value === undefined) return 'DEFAULT';
        parameters.push(value instanceof Date ? value.toISOString() : value);
        return `$${parameters.length + 1}`;
      });
      return `($1, ${cells.join(', ')})`;
    });
    const columnList = ['tenant_id', ...columns].map((column) => `"${column}"`).join(', ');
    await scope.query(`INSERT INTO "${scope.tableName(target)}" (${columnList}) VALUES ${tuples.join(', ')}`, parameters);
  }
}
