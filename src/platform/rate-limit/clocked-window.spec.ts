import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ClockedWindow } from './clocked-window.js';

describe('ClockedWindow', () => {
  const at = { now: 1_000_000_250 };
  const window = () => new ClockedWindow(new RateLimiterMemory({ points: 2, duration: 1 }), 1000, { now: () => at.now });

  it('counts within one window of the clock and measures the reset to its end', async () => {
    at.now = 1_000_000_250;
    const limiter = window();
    expect(await limiter.consume('k')).toMatchObject({ remainingPoints: 1, msBeforeNext: 750 });
    at.now += 500;
    expect(await limiter.consume('k')).toMatchObject({ remainingPoints: 0, msBeforeNext: 250 });
    const refused = await limiter.consume('k').catch((rejection: unknown) => rejection);
    expect(refused).toBeInstanceOf(RateLimiterRes);
    expect(refused).toMatchObject({ remainingPoints: 0, msBeforeNext: 250 });
  });

  it('starts afresh when the clock enters the next window, with no real time passing', async () => {
    at.now = 2_000_000_900;
    const limiter = window();
    await limiter.consume('k');
    await limiter.consume('k');
    await expect(limiter.consume('k')).rejects.toBeInstanceOf(RateLimiterRes);
    at.now += 100;
    expect(await limiter.consume('k')).toMatchObject({ remainingPoints: 1, msBeforeNext: 1000 });
  });

  it('gives points back in the window they were counted in, not the one the clock has moved on to', async () => {
    at.now = 4_000_000_900;
    const limiter = window();
    const counted = limiter.current();
    await limiter.consume('k', 2, counted);
    at.now += 200;
    await limiter.reward('k', 2, counted);
    // The new window's allowance is its own two, not four.
    expect(await limiter.consume('k', 2)).toMatchObject({ remainingPoints: 0 });
    await expect(limiter.consume('k')).rejects.toBeInstanceOf(RateLimiterRes);
  });

  it('gives a point back in the current window', async () => {
    at.now = 3_000_000_000;
    const limiter = window();
    await limiter.consume('k');
    await limiter.consume('k');
    await limiter.reward('k');
    expect(await limiter.consume('k')).toMatchObject({ remainingPoints: 0 });
  });
});
