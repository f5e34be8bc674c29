import type { INestApplicationContext } from '@nestjs/common';
import { RateLimiterService } from '../../src/platform/rate-limit/rate-limiter.service.js';

/**
 * Runs `body` with the rate limiter's clock of each application stopped at `at`, then lets the
 * clocks run again: every request falls in one window of every limit, however long the requests
 * take. Running, a slow machine could carry them across a window's turn and count them in two.
 */
export async function inOneWindow<T>(apps: INestApplicationContext | INestApplicationContext[], at: number, body: () => Promise<T>): Promise<T> {
  const clocks = [apps].flat().map((app) => app.get(RateLimiterService).clock);
  const running = clocks.map((clock) => clock.now);
  for (const clock of clocks) clock.now = () => at;
  try {
    return await body();
  } finally {
    clocks.forEach((clock, index) => (clock.now = running[index]));
  }
}
