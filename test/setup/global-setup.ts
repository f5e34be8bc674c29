import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * One database and one Redis key prefix per test run, created here and dropped in teardown, so
 * runs never see each other's state. Workers inherit the environment set here; the schema comes
 * from the real migrations, applied by `migrate-database.ts` in each worker (an advisory lock
 * makes the first one apply them and the others wait).
 *
 * Jest loads this file outside its module system, so it imports packages only, never src/.
 */
export default async function globalSetup(): Promise<void> {
  const run = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const server = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const name = `integrations_test_${run}`;
  const admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  server.pathname = `/${name}`;
  process.env.DATABASE_URL = server.toString();
  process.env.REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  process.env.REDIS_PREFIX = `oh-test-${run}`;
  process.env.LOG_LEVEL = 'silent';
  // Every test sends from 127.0.0.1 and many send bad keys on purpose; the failed-authentication
  // limit is tested on its own, with a low limit and its own Redis prefix.
  process.env.AUTH_FAILURES_PER_MINUTE = '1000000';
  // Tests insert events at fixed dates, some months or years back, and walk them; the retention
  // job any test's worker schedules would delete those past 30 days mid-walk. Retention is tested
  // on its own database, with its default of 30 days.
  process.env.EVENTS_RETENTION_DAYS = '3650';
}
