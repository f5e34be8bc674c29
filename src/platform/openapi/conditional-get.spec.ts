import { ifNoneMatchHits } from './conditional-get.js';

describe('ifNoneMatchHits', () => {
  const etags = ['"abc"', '"abc-gzip"'];

  it.each([
    ['"abc"', true],
    ['"abc-gzip"', true],
    ['W/"abc"', true],
    ['w/"abc"', true],
    ['"zzz", "abc"', true],
    ['"zzz",W/"abc-gzip"', true],
    ['*', true],
    ['abc', true],
    [' "abc" ', true],
    ['"zzz"', false],
    ['"ab"', false],
    ['"abc', false],
    ['', false],
    [',,', false],
    ['W/', false],
  ])('%p → %p', (header, expected) => expect(ifNoneMatchHits(header, etags)).toBe(expected));

  it('is false without the header', () => expect(ifNoneMatchHits(undefined, etags)).toBe(false));
});
