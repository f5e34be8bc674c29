import { keyChange, tenantChange } from '../auth-changes/auth-changes.js';
import { AuthCache, type KeyRecord } from './auth-cache.js';

const record = (tenantId: string): KeyRecord => ({
  id: 'k',
  tenantId,
  tenantSlug: 's',
  tenantActive: true,
  secretHash: Buffer.alloc(32),
  scopes: [],
  expiresAt: null,
  revokedAt: null,
  deletedAt: null,
  userId: null,
});

describe('AuthCache', () => {
  let now = 0;
  const cache = () => new AuthCache(5_000, 3, () => now);
  beforeEach(() => (now = 1_000));

  it('keeps an entry for its time to live only', () => {
    const keys = cache();
    keys.set('a', record('t1'), keys.generation);
    now += 4_999;
    expect(keys.get('a')).toBeDefined();
    now += 1;
    expect(keys.get('a')).toBeUndefined();
  });

  it('drops a key on its notification and every key of a company on the company’s', () => {
    const keys = cache();
    keys.set('a', record('t1'), keys.generation);
    keys.set('b', record('t1'), keys.generation);
    keys.set('c', record('t2'), keys.generation);
    keys.invalidate(keyChange('c'));
    expect(keys.get('c')).toBeUndefined();
    keys.invalidate(tenantChange('t1'));
    expect([keys.get('a'), keys.get('b')]).toEqual([undefined, undefined]);
  });

  it('does not store what a lookup read before an invalidation arrived', () => {
    const keys = cache();
    const generation = keys.generation;
    keys.invalidate(keyChange('a'));
    keys.set('a', record('t1'), generation);
    expect(keys.get('a')).toBeUndefined();
  });

  it('clears everything on an unknown notification, and bounds its size by dropping the oldest', () => {
    const keys = cache();
    for (const prefix of ['a', 'b', 'c', 'd']) keys.set(prefix, record('t1'), keys.generation);
    expect(keys.get('a')).toBeUndefined();
    expect(keys.get('d')).toBeDefined();
    keys.invalidate('something');
    expect(keys.get('d')).toBeUndefined();
  });

  it('remembers a prefix that names no key for its time to live, until a key with it is created', () => {
    const keys = cache();
    keys.set('x', null, keys.generation);
    expect(keys.get('x')).toBeNull();
    now += 5_000;
    expect(keys.get('x')).toBeUndefined();
    keys.set('x', null, keys.generation);
    keys.invalidate(keyChange('x'));
    expect(keys.get('x')).toBeUndefined();
  });

  it('bounds the prefixes naming no key apart, so made-up prefixes never push out the keys in use', () => {
    const keys = cache();
    for (const prefix of ['a', 'b', 'c']) keys.set(prefix, record('t1'), keys.generation);
    for (const prefix of ['u', 'v', 'w', 'x', 'y']) keys.set(prefix, null, keys.generation);
    expect(['a', 'b', 'c'].map((prefix) => keys.get(prefix)?.tenantId)).toEqual(['t1', 't1', 't1']);
    expect(['u', 'v', 'w', 'x', 'y'].map((prefix) => keys.get(prefix))).toEqual([undefined, undefined, null, null, null]);
    keys.clear();
    expect(keys.get('y')).toBeUndefined();
  });
});
