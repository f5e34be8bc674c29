import pg from 'pg';
import { DataSource, type DataSourceOptions, MigrationExecutor } from 'typeorm';
import { type AppConfig, MAX_TIMER_MS } from '../config/app-config.js';
import { loadSqlMigrations } from './migrations.js';
import { SnakeNamingStrategy } from './snake-naming.strategy.js';

/** A fixed key for the migration advisory lock, so concurrent starts migrate once. */
const MIGRATION_LOCK_ID = 7_160_516;

/** The database `url` names, decoded as pg decodes it (decodeURI: `%2F` stays), so the one made is the one pg connects to. */
function databaseName(url: string): string {
  return decodeURI(new URL(url).pathname.replace(/^\//, ''));
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(name)}`;
  return parsed.toString();
}

/** Where `url` points, without its credentials: for messages. */
function describeServer(url: string): string {
  const parsed = new URL(url);
  // As pg reads the URL: `host` and `port` parameters win (a socket directory is written only so).
  return `${parsed.searchParams.get('host') ?? parsed.hostname}:${parsed.searchParams.get('port') ?? (parsed.port || '5432')}`;
}

/** How much longer than the statement timeout a query waits for a server that does not answer at all. */
const UNANSWERED_MARGIN_MS = 2_000;

/** The pool's query_timeout: the statement timeout and a margin, within what a Node timer can wait. */
export function unansweredQueryMs(config: Pick<AppConfig, 'DATABASE_STATEMENT_TIMEOUT_MS'>): number {
  return Math.min(config.DATABASE_STATEMENT_TIMEOUT_MS + UNANSWERED_MARGIN_MS, MAX_TIMER_MS);
}

/** How long the start waits for PostgreSQL to answer before it gives up. */
const START_TIMEOUT_MS = 10_000;

/** Creates the database of `url` when it does not exist yet (operations.md). */
async function ensureDatabase(url: string): Promise<void> {
  const name = databaseName(url);
  // Bounded: a server that accepts the connection but never answers fails the start, as a refusal does, rather than hanging it.
  const admin = new pg.Client({ connectionString: withDatabase(url, 'postgres'), connectionTimeoutMillis: START_TIMEOUT_MS, query_timeout: START_TIMEOUT_MS });
  // The first thing every process and CLI run does: a refused connection names what to check, not only the socket error.
  await admin.connect().catch((error: Error) => {
    throw new Error(`cannot connect to PostgreSQL at ${describeServer(url)} (DATABASE_URL): ${error.message}`);
  });
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) {
      await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((error: { code?: string }) => {
        // Another process created it between our check and our CREATE.
        if (error.code !== '42P04' && error.code !== '23505') throw error;
      });
    }
  } finally {
    await admin.end();
  }
}

export async function dropDatabase(url: string): Promise<void> {
  const admin = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${databaseName(url).replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/**
 * Session settings of every connection, as the startup packet's `options`. `jit=off`: the
 * service's statements are short index reads, and PostgreSQL's JIT compiles a plan whose
 * estimated cost passes `jit_above_cost`, which one company's statistics can do for every
 * company (500-line invoices made every invoice list estimate 137k and compile at each call: 25 ms
 * for 0.7 ms of work). `DateStyle=ISO`: dates are read as text (`issue_date::text`) and
 * timestamps parsed by node-postgres, both in ISO form only; a database set to another style
 * (`SQL, DMY`) answered `01/12/2026`, null timestamps, and a 500 to every invoice created.
 */
export const SESSION_SETTINGS: Readonly<Record<string, string>> = { jit: 'off', DateStyle: 'ISO' };

/**
 * `url` with `settings` after the `options` it already gives: pg lets the connection string's
 * parameters win over a pool's own `options`, so they go in the string. Appended as they are
 * (`-c+jit=off`), the rest of the string untouched: no percent-escape of ours, which
 * pg-connection-string would escape again when the string holds an invalid one of its own (a
 * password with `%zz` is taken, and re-encoded whole), and no re-serialised URL.
 */
export function withSessionSettings(url: string, settings: Readonly<Record<string, string>>): string {
  const added = Object.entries(settings)
    .map(([name, value]) => `-c+${name}=${value}`)
    .join('+');
  const hash = url.indexOf('#');
  const [rest, fragment] = hash === -1 ? [url, ''] : [url.slice(0, hash), url.slice(hash)];
  const at = rest.indexOf('?');
  if (at === -1) return `${rest}?options=${added}${fragment}`;
  const parameters = rest.slice(at + 1).split('&');
  // pg reads the last of several.
  const options = parameters.findLastIndex((parameter) => parameter.startsWith('options='));
  if (options === -1) return `${rest}&options=${added}${fragment}`;
  parameters[options] = `${parameters[options]}+${added}`;
  return `${rest.slice(0, at)}?${parameters.join('&')}${fragment}`;
}

/**
 * Each role's pool keeps the connections it opened (no idle timeout, as a fixed-size pool):
 * one opened at the worst moment, a burst after a quiet spell, costs its caller a backend start
 * and a first parse of every statement on cold catalog caches, about 10 ms each (seen as the
 * worker's latency spikes when a dead receiver's requests all time out at once).
 */
export function dataSourceOptions(url: string): DataSourceOptions {
  return {
    type: 'postgres',
    url: withSessionSettings(url, SESSION_SETTINGS),
    namingStrategy: new SnakeNamingStrategy(),
    migrations: loadSqlMigrations(),
    migrationsRun: false,
    synchronize: false,
    extra: { max: 10, idleTimeoutMillis: 0 },
  };
}

/** Creates the database if missing and applies pending migrations, one process at a time. */
export async function migrate(url: string): Promise<string[]> {
  await ensureDatabase(url);
  const dataSource = new DataSource({ ...dataSourceOptions(url), extra: { max: 1 } });
  await dataSource.initialize();
  // One connection, held here from the lock to its release: TypeORM keeps the connection it took
  // for a migration that fails outside a transaction (its own table, without the right to create
  // it), and the unlock then waited for the pool's only connection for ever, holding the lock
  // every other process's start waits on (found by a review).
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      const migrations = new MigrationExecutor(dataSource, runner);
      migrations.transaction = 'each';
      const applied = await migrations.executePendingMigrations();
      return applied.map((migration) => migration.name);
    } finally {
      // A failed unlock (the connection lost) must not replace the migration's own error or
      // outcome: the session's end, just below, frees the lock anyway.
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    }
  } finally {
    await runner.release();
    await dataSource.destroy();
  }
}
