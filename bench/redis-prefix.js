// A bench run's Redis keys live under its own REDIS_PREFIX; both benchmarks delete them at the
// end, once every process that wrote them has exited (a queue's meta key has no expiry).
import { Redis } from 'ioredis';

export async function deleteRedisPrefix(prefix) {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 1000 })) if (keys.length > 0) await redis.del(...keys);
  } finally {
    await redis.quit();
  }
}
