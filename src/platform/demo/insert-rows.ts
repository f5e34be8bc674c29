import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';

/** A row to insert: entity properties, timestamps also as RFC 3339 strings (for microseconds). */
export type InsertRow<E> = { [K in keyof E]?: E[K] | (E[K] extends Date | null ? string : never) };

/** PostgreSQL's limit on bind parameters of one statement. */
const MAX_PARAMETERS = 65_535;

/**
 * Multi-row INSERT of demo records, a few statements for any count. TypeORM's own insert would
 * turn timestamp strings into Dates and lose their microseconds, which the pagination ties in
 * demo data depend on. A property a row leaves out takes the column default.
 */
export async function insertRows<E extends ObjectLiteral>(manager: EntityManager, target: EntityTarget<E>, rows: readonly InsertRow<E>[]): Promise<void> {
  if (rows.length === 0) return;
  const metadata = manager.connection.getMetadata(target);
  const properties = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const columns = properties.map((property) => {
    const column = metadata.findColumnWithPropertyName(property);
    if (!column) throw new Error(`${metadata.name} has no column for property ${property}`);
    return column.databaseName;
  });
  const perStatement = Math.floor(MAX_PARAMETERS / columns.length);
  for (let start = 0; start < rows.length; start += perStatement) {
    const parameters: unknown[] = [];
    const tuples = rows.slice(start, start + perStatement).map((row) => {
      const cells = properties.map((property) => {
        const value: unknown = row[property as keyof E];
        if (value === undefined) return 'DEFAULT';
        parameters.push(value instanceof Date ? value.toISOString() : value);
        return `$${parameters.length}`;
      });
      return `(${cells.join(', ')})`;
    });
    const columnList = columns.map((column) => `"${column}"`).join(', ');
    await manager.query(`INSERT INTO "${metadata.tableName}" (${columnList}) VALUES ${tuples.join(', ')}`, parameters);
  }
}
