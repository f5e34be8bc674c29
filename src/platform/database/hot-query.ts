import { type DataSource, type EntityManager, QueryRunnerAlreadyReleasedError } from 'typeorm';

/** A pg pool or one of its connections: both take a named statement. */
interface PgQueryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * A statement on the path of every request or delivery, run as a named prepared statement
 * straight on the connection pool: PostgreSQL parses it once per connection, and no query runner
 * or query logging sits in between. Its text must be the same on every call under one name.
 */
export async function hotQuery<T>(dataSource: DataSource, name: string, text: string, values: unknown[]): Promise<T[]> {
  const pool = (dataSource.driver as unknown as { master: PgQueryable }).master;
  return (await pool.query({ name, text, values })).rows as T[];
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
  return (await connection.query({ name, text, values })).rows as T[];
}
