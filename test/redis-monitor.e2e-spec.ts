import { Redis } from 'ioredis';
import { openRedisMonitor } from './support/redis-monitor.js';
import { waitFor } from './support/wait-for.js';

/** The rate-limit tests count Redis calls with MONITOR while the run's other files keep Redis busy. */
describe('a MONITOR connection opened on a busy Redis (e2e)', () => {
  it('opens every time and sees the next command sent', async () => {
    const url = process.env.REDIS_URL!;
    const prefix = `${process.env.REDIS_PREFIX}:monitor-load`;
    const loaders = Array.from({ length: 4 }, () => new Redis(url));
    let loading = true;
    // Before the helper, a monitored line in the same chunk as MONITOR's OK crashed the test (ioredis's race).
    const load = loaders.map(async (redis) => {
      while (loading) await Promise.all(Array.from({ length: 50 }, (_, i) => redis.set(`${prefix}:${i}`, '1', 'EX', 5)));
    });
    const marker = new Redis(url);
    try {
      for (let round = 0; round < 30; round++) {
        const monitor = await openRedisMonitor(url);
        try {
          const key = `${prefix}:marker:${round}`;
          let seen = false;
          monitor.on('monitor', (_time: string, args: string[]) => (seen ||= args.includes(key)));
          await marker.exists(key);
          await waitFor(async () => seen, 5_000, `round ${round}'s marker`);
        } finally {
          monitor.disconnect();
        }
      }
    } finally {
      loading = false;
      await Promise.all(load);
      for (const redis of [...loaders, marker]) redis.disconnect();
    }
  });
});
