import type { Redis } from 'ioredis';

/** How often a Redis connection is asked a PING, and how long its answer may take before the connection is made again. */
export interface RedisLiveness {
  intervalMs: number;
  timeoutMs: number;
}

const LIVENESS: RedisLiveness = { intervalMs: 10_000, timeoutMs: 5_000 };

/**
 * Makes `redis`'s connection again when a PING on it has no answer in time. A connection the
 * network drops without a reset (a firewall's or NAT's state gone) otherwise stays open: its
 * commands time out one by one for as long as the kernel keeps it (about 15 minutes), a
 * subscriber hears nothing, and a health probe reports Redis down while it is up (found by a
 * crash review: a worker stopped delivering, an API process stayed unready). ioredis then
 * connects again by its retry strategy, and subscribes again. Returns what stops the checks.
 */
export function reconnectWhenSilent(redis: Redis, liveness: RedisLiveness = LIVENESS): () => void {
  const timer = setInterval(() => {
    if (redis.status !== 'ready') return;
    const silent = () => {
      clearTimeout(deadline);
      if (redis.status === 'ready') redis.disconnect(true);
    };
    const deadline = setTimeout(silent, liveness.timeoutMs).unref();
    redis.ping().then(
      () => clearTimeout(deadline),
      // Timed out by the connection's own commandTimeout: as silent. Anything else (closed) ioredis handles.
      (error: Error) => (/^Command timed out/.test(error.message) ? silent() : clearTimeout(deadline)),
    );
  }, liveness.intervalMs).unref();
  return () => clearInterval(timer);
}
