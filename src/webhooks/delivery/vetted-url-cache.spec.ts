import { VettedUrlCache } from './vetted-url-cache.js';

const vetted = { url: new URL('https://hooks.example.com/a'), ipv4: ['93.184.216.34'] };

describe('VettedUrlCache', () => {
  it('answers an approved URL until its time is up, then forgets it', () => {
    const cache = new VettedUrlCache(1000);
    cache.set('https://hooks.example.com/a', vetted, 10_000);
    expect(cache.get('https://hooks.example.com/a', 10_999)).toBe(vetted);
    expect(cache.get('https://hooks.example.com/a', 11_000)).toBeUndefined();
    expect(cache.get('https://hooks.example.com/a', 10_500)).toBeUndefined();
  });

  it('keys by the exact URL, so a changed URL is checked again', () => {
    const cache = new VettedUrlCache(1000);
    cache.set('https://hooks.example.com/a', vetted, 0);
    expect(cache.get('https://hooks.example.com/b', 1)).toBeUndefined();
  });

  it('keeps at most 1,000 URLs, forgetting the oldest', () => {
    const cache = new VettedUrlCache(60_000);
    for (let n = 0; n <= 1000; n++) cache.set(`https://hooks.example.com/${n}`, vetted, 0);
    expect(cache.get('https://hooks.example.com/0', 1)).toBeUndefined();
    expect(cache.get('https://hooks.example.com/1', 1)).toBe(vetted);
    expect(cache.get('https://hooks.example.com/1000', 1)).toBe(vetted);
  });
});
