import type { Redis } from 'ioredis';
import type { Socket } from 'node:net';
import { settlesWithin } from '../timing/settles-within.js';

/** How often a Redis connection is asked a PING, and how long its answer may take. */
export interface RedisLiveness {
  intervalMs: number;
  timeoutMs: number;
}

const LIVENESS: RedisLiveness = { intervalMs: 10_000, timeoutMs: 5_000 };

/** PINGs in a row without an answer in time before the connection is made again: one slow moment of Redis's is no reason. */
const MISSES = 2;

/** Whether a PING on `redis` is answered within `timeoutMs`; a command timeout of the connection's own (shorter) is no answer. */
async function answers(redis: Redis, timeoutMs: number): Promise<boolean> {
  const pong = redis.ping().then(
    () => true,
    () => false,
  );
  return (await settlesWithin(pong, timeoutMs)) && pong;
}

/**
 * Makes `redis`'s connection again when PINGs on it go unanswered. A connection the network
 * drops without a reset (a firewall's or NAT's state gone) otherwise stays open: its commands
 * time out one by one for as long as the kernel keeps it (about 15 minutes), a subscriber hears
 * nothing, and a health probe reports Redis down while it is up (found by a crash review: a
 * worker stopped delivering, an API process stayed unready). Its socket is destroyed, since an
 * orderly close would wait for a peer that does not answer; ioredis then connects again by its
 * retry strategy, and subscribes again. Returns what stops the checks.
 */
export function reconnectWhenSilent(redis: Redis, liveness: RedisLiveness = LIVENESS): () => void {
  let misses = 0;
  let checking = false;
  const timer = setInterval(async () => {
    if (redis.status !== 'ready' || checking) return;
    checking = true;
    const answered = await answers(redis, liveness.timeoutMs);
    checking = false;
    misses = answered ? 0 : misses + 1;
    if (misses < MISSES) return;
    misses = 0;
    (redis as unknown as { stream?: Socket }).stream?.destroy();
  }, liveness.intervalMs).unref();
  return () => clearInterval(timer);
}
