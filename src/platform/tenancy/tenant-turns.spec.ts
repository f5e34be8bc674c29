import { jest } from '@jest/globals';
import { DomainException } from '../errors/domain.exception.js';
import { TenantTurns } from './tenant-turns.js';

describe('TenantTurns', () => {
  afterEach(() => jest.useRealTimers());

  it('gives a company at most its turns at once, the next to whoever waited first, and other companies theirs meanwhile', async () => {
    const turns = new TenantTurns(2, 10_000);
    const [first, second] = await Promise.all([turns.acquire('a'), turns.acquire('a')]);
    const started: string[] = [];
    const third = turns.acquire('a').then((end) => (started.push('third'), end));
    const fourth = turns.acquire('a').then((end) => (started.push('fourth'), end));
    const other = await turns.acquire('b');
    await Promise.resolve();
    expect(started).toEqual([]);
    first();
    first();
    await third;
    expect(started).toEqual(['third']);
    second();
    (await fourth)();
    (await third)();
    other();
    expect(started).toEqual(['third', 'fourth']);
  });

  it('refuses a wait past its bound with 503 service_unavailable and Retry-After, and takes the waiter out of the line', async () => {
    jest.useFakeTimers();
    const turns = new TenantTurns(1, 5_000);
    const held = await turns.acquire('a');
    const waiting = turns.acquire('a');
    jest.advanceTimersByTime(5_000);
    const refused = await waiting.catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainException);
    expect(refused).toMatchObject({ errorName: 'ServiceUnavailable', headers: { 'Retry-After': '2' } });
    held();
    // The refused waiter holds nothing: the next comes at once.
    (await turns.acquire('a'))();
  });

  it('runs work in a turn and ends it however the work ends', async () => {
    const turns = new TenantTurns(1, 10_000);
    await expect(turns.run('a', () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(await turns.run('a', async () => 'done')).toBe('done');
  });
});
