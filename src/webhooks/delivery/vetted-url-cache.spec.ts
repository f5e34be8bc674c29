import { jest } from '@jest/globals';
import type { VettedWebhookUrl } from '../url-safety/webhook-url-checker.js';
import { VettedUrlCache } from './vetted-url-cache.js';

const vetted = { url: new URL('https://hooks.example.com/a'), ipv4: ['93.184.216.34'] };

/** A URL check that counts its runs; by default it approves. */
const counted = (answer: () => Promise<VettedWebhookUrl> = async () => vetted) => jest.fn(answer);

describe('VettedUrlCache', () => {
  it('reuses an approval until its time is up, then checks again', async () => {
    const cache = new VettedUrlCache(1000);
    const check = counted();
    await expect(cache.vet('https://hooks.example.com/a', 10_000, check)).resolves.toBe(vetted);
    await expect(cache.vet('https://hooks.example.com/a', 10_999, check)).resolves.toBe(vetted);
    expect(check).toHaveBeenCalledTimes(1);
    await cache.vet('https://hooks.example.com/a', 11_000, check);
    expect(check).toHaveBeenCalledTimes(2);
  });

  it('shares a check under way: attempts asking meanwhile wait for it instead of checking again', async () => {
    const cache = new VettedUrlCache(1000);
    let answer!: (value: VettedWebhookUrl) => void;
    const check = counted(() => new Promise<VettedWebhookUrl>((resolve) => (answer = resolve)));
    const waiting = Array.from({ length: 10 }, (_, n) => cache.vet('https://hooks.example.com/a', 5_000 + n, check));
    expect(check).toHaveBeenCalledTimes(1);
    answer(vetted);
    await expect(Promise.all(waiting)).resolves.toEqual(Array(10).fill(vetted));
  });

  it('never keeps a refusal: every attempt waiting on it gets it, the next one checks again', async () => {
    const cache = new VettedUrlCache(1000);
    const refused = new Error('refused');
    const refusing = counted(async () => {
      throw refused;
    });
    const [first, second] = [cache.vet('https://hooks.example.com/a', 0, refusing), cache.vet('https://hooks.example.com/a', 1, refusing)];
    await expect(first).rejects.toBe(refused);
    await expect(second).rejects.toBe(refused);
    expect(refusing).toHaveBeenCalledTimes(1);
    const check = counted();
    await expect(cache.vet('https://hooks.example.com/a', 2, check)).resolves.toBe(vetted);
    expect(check).toHaveBeenCalledTimes(1);
  });

  it('keys by the exact URL, so a changed URL is checked again', async () => {
    const cache = new VettedUrlCache(1000);
    const check = counted();
    await cache.vet('https://hooks.example.com/a', 0, check);
    await cache.vet('https://hooks.example.com/b', 1, check);
    expect(check).toHaveBeenCalledTimes(2);
  });

  it('keeps at most 1,000 URLs, forgetting the oldest', async () => {
    const cache = new VettedUrlCache(60_000);
    const check = counted();
    for (let n = 0; n <= 1000; n++) await cache.vet(`https://hooks.example.com/${n}`, 0, check);
    expect(check).toHaveBeenCalledTimes(1001);
    await cache.vet('https://hooks.example.com/1', 1, check);
    await cache.vet('https://hooks.example.com/1000', 1, check);
    expect(check).toHaveBeenCalledTimes(1001);
    await cache.vet('https://hooks.example.com/0', 1, check);
    expect(check).toHaveBeenCalledTimes(1002);
  });
});
