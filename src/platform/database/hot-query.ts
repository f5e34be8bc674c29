import type { DataSource } from 'typeorm';

interface PgPool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * A statement on the path of every request or delivery, run as a named prepared statement
 * straight on the connection pool: PostgreSQL parses it once per connection, and no query runner
 * or query logging sits in between. For reads, and for writes that are one statement of their
 * own (autocommitted); writes that belong together go through TypeORM and its transactions.
 */
export async function hotQuery<T>(dataSource: DataSource, name: string, text: string, values: unknown[]): Promise<T[]> {
  const pool = (dataSource.driver as unknown as { master: PgPool }).master;
  return (await pool.query({ name, text, values })).rows as T[];
}
