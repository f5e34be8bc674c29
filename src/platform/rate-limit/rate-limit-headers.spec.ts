import { rateLimitHeader, rateLimitPolicyHeader, retryAfterSeconds } from './rate-limit-headers.js';
import { defaultWindow, NAMED_RATE_LIMITS } from './rate-limit.policies.js';

describe('rate limit headers', () => {
  it('lists every window of a route in RateLimit-Policy', () => {
    expect(rateLimitPolicyHeader([defaultWindow(100)])).toBe('"default";q=100;w=1');
    expect(rateLimitPolicyHeader([defaultWindow(100), ...NAMED_RATE_LIMITS.webhook_replay_failed])).toBe(
      '"default";q=100;w=1, "webhook_replay_failed";q=5;w=60, "webhook_replay_failed_hourly";q=30;w=3600',
    );
  });

  it('gives remaining requests and whole seconds to reset in RateLimit', () => {
    const window = defaultWindow(100);
    expect(rateLimitHeader([{ window, remaining: 99, resetMs: 1000 }])).toBe('"default";r=99;t=1');
    expect(rateLimitHeader([{ window, remaining: 0, resetMs: 1 }, { window: NAMED_RATE_LIMITS.webhook_replay[0], remaining: 59, resetMs: 59_001 }])).toBe(
      '"default";r=0;t=1, "webhook_replay";r=59;t=60',
    );
  });

  it('rounds Retry-After up and never below one second', () => {
    expect(retryAfterSeconds(0)).toBe(1);
    expect(retryAfterSeconds(20)).toBe(1);
    expect(retryAfterSeconds(1000)).toBe(1);
    expect(retryAfterSeconds(1001)).toBe(2);
    expect(retryAfterSeconds(3_599_500)).toBe(3600);
  });
});
