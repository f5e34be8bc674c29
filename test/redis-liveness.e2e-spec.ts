import { Redis } from 'ioredis';
import { reconnectWhenSilent } from '../src/platform/health/redis-liveness.js';
import { tcpProxy } from './support/tcp-proxy.js';
import { waitFor } from './support/wait-for.js';

/** A Redis connection the network drops without a reset: it is made again, as every role's connections are. */
describe('Redis connections that stop answering (e2e)', () => {
  const target = new URL(process.env.REDIS_URL!);

  it.each([
    ['a command connection (the gate, the rate limiter: a command timeout of their own)', { commandTimeout: 200 }, false],
    ['a subscriber (the gate wake-ups)', { maxRetriesPerRequest: null }, true],
  ])('connects %s again, which then answers', async (_, options, subscriber) => {
    const proxy = await tcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    proxy.up();
    const redis = new Redis(`redis://127.0.0.1:${proxy.port}`, { ...options, retryStrategy: () => 50 });
    redis.on('error', () => undefined);
    const stop = reconnectWhenSilent(redis, { intervalMs: 100, timeoutMs: 300 });
    const channel = `${process.env.REDIS_PREFIX}-liveness-${Math.random()}`;
    const heard: string[] = [];
    const publisher = new Redis(process.env.REDIS_URL!);
    try {
      await waitFor(async () => redis.status === 'ready', 5000, 'the first connection');
      if (subscriber) {
        redis.on('message', (_channel: string, message: string) => heard.push(message));
        await redis.subscribe(channel);
      }
      let reconnected = false;
      redis.on('reconnecting', () => (reconnected = true));
      // Black-holed: the connection stays open and carries nothing more; new ones go through.
      proxy.stall();
      // Before: it stayed on the silent connection for good, each command timing out.
      await waitFor(async () => reconnected && redis.status === 'ready', 10_000, 'a new connection');
      if (subscriber) {
        await waitFor(async () => (await publisher.publish(channel, 'after')) > 0 && heard.includes('after'), 10_000, 'a message on the new connection');
      } else {
        expect(await redis.ping()).toBe('PONG');
      }
    } finally {
      stop();
      redis.disconnect();
      publisher.disconnect();
      await proxy.close();
    }
  });
});
