import { type DataSource, type EntityManager, QueryRunnerAlreadyReleasedError } from 'typeorm';

/** A pg pool or one of its connections: both take a named statement. */
export interface PgQueryable {
  query(config: { name: string; text: string; values: unknown[]; rowMode: 'array' }): Promise<{ rows: unknown[][]; fields: { name: string }[] }>;
}

/**
 * A statement on the path of every request or delivery, run as a named prepared statement
 * straight on the connection pool: PostgreSQL parses it once per connection, and no query runner
 * or query logging sits in between. Its text must be the same on every call under one name.
 */
export async function hotQuery<T>(dataSource: DataSource, name: string, text: string, values: unknown[]): Promise<T[]> {
  return namedQuery<T>((dataSource.driver as unknown as { master: PgQueryable }).master, name, text, values);
}

/**
 * The same for a statement that belongs to a transaction TypeORM runs: on that transaction's
 * connection, so it commits or rolls back with the rest.
 */
export async function hotQueryIn<T>(transaction: EntityManager, name: string, text: string, values: unknown[]): Promise<T[]> {
  if (transaction.queryRunner === undefined) throw new Error(`hotQueryIn(${name}) runs inside a transaction only`);
  // A released runner still hands out its old connection, by then back in the pool (perhaps in
  // another request's transaction) or dead: refused as TypeORM's own statements are, a 503.
  if (transaction.queryRunner.isReleased) throw new QueryRunnerAlreadyReleasedError();
  const connection = (await transaction.queryRunner.connect()) as PgQueryable;
  return namedQuery<T>(connection, name, text, values);
}

/**
 * A named statement's rows as objects, one member per column (a later column of the same name
 * wins, as in pg's rows). pg makes every row of every statement at one place, by copying a
 * prebuilt object; in a process running hundreds of row shapes that copy is megamorphic, and V8
 * makes each row member by member (about 26 µs of a list page of 50 invoices, against the
 * benchmark's floor with its four shapes: docs/benchmarks.md, "The twenty-second session"). The
 * rows are therefore read as arrays and made by a function of the statement's own, whose object
 * literal has one shape. Exported for the request-path bench, whose floor reads the same way.
 */
export async function namedQuery<T>(queryable: PgQueryable, name: string, text: string, values: unknown[]): Promise<T[]> {
  const result = await queryable.query({ name, text, values, rowMode: 'array' });
  const build = rowBuilder(name, result.fields);
  return result.rows.map(build) as T[];
}

type RowBuilder = (row: unknown[]) => object;

/** Each statement's builder, by its name, with the columns it was made for. */
const builders = new Map<string, { columns: readonly string[]; build: RowBuilder }>();

function rowBuilder(name: string, fields: readonly { name: string }[]): RowBuilder {
  const known = builders.get(name);
  if (known && sameColumns(known.columns, fields)) return known.build;
  const columns = fields.map((field) => field.name);
  const built = { columns, build: buildRow(columns) };
  builders.set(name, built);
  return built.build;
}

function sameColumns(columns: readonly string[], fields: readonly { name: string }[]): boolean {
  if (columns.length !== fields.length) return false;
  for (let index = 0; index < columns.length; index += 1) if (columns[index] !== fields[index].name) return false;
  return true;
}

/**
 * A function making `{column: row[index], ...}` for these columns. Written as source so that its
 * object literal has one fixed shape; each name is a JSON string literal, so no column name can
 * be anything but a member name. `__proto__` is refused: as a literal's member it would set the
 * object's prototype.
 */
export function buildRow(columns: readonly string[]): RowBuilder {
  if (columns.includes('__proto__')) throw new Error('A hot statement cannot name a column __proto__');
  const members = columns.map((column, index) => `${JSON.stringify(column)}: row[${index}]`);
  return new Function('row', `return { ${members.join(', ')} };`) as RowBuilder;
}
