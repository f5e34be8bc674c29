import { throttledWarning } from './throttled-warning.js';

describe('throttledWarning', () => {
  it('writes the first, holds back the repeats for 30 s, then writes one saying how many it held', () => {
    const written: string[] = [];
    let now = 1_000_000;
    const warn = throttledWarning((message) => written.push(message), () => now);
    warn('Redis: connect ECONNREFUSED');
    for (let n = 0; n < 5; n += 1) {
      now += 5_000;
      warn('Redis: connect ECONNREFUSED');
    }
    expect(written).toEqual(['Redis: connect ECONNREFUSED']);
    now += 5_000;
    warn('Redis: Command timed out');
    expect(written).toEqual(['Redis: connect ECONNREFUSED', 'Redis: Command timed out (and 5 more like it since the last)']);
  });
});
