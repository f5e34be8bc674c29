import { Redis } from 'ioredis';
import pg from 'pg';

/** Drops the run's database and deletes its Redis keys. Packages only, like global setup. */
export default async function globalTeardown(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (url?.includes('/integrations_test_')) {
    const name = new URL(url).pathname.slice(1);
    const server = new URL(url);
    server.pathname = '/postgres';
    const admin = new pg.Client({ connectionString: server.toString() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
  const prefix = process.env.REDIS_PREFIX;
  if (!prefix?.startsWith('oh-test-')) return;
  const redis = new Redis(process.env.REDIS_URL!);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
