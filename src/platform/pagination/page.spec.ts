import { DomainException } from '../errors/domain.exception.js';
import { parsePageRequest } from './page.js';

describe('parsePageRequest', () => {
  it.each([
    [undefined, 50],
    ['1', 1],
    ['50', 50],
    ['100', 100],
    ['0', 1],
    ['-5', 1],
    ['101', 100],
    ['100000', 100],
    ['99999999999999999999', 100],
    ['-99999999999999999999', 1],
  ])('limit %p → %p', (limit, expected) => {
    expect(parsePageRequest(limit === undefined ? {} : { limit }, 'holder').limit).toBe(expected);
  });

  // Before, over 1,000 digits was a 422 the docs did not say.
  it('clamps a limit of any length the request line holds', () => {
    expect(parsePageRequest({ limit: '9'.repeat(10_000) }, 'holder').limit).toBe(100);
    expect(parsePageRequest({ limit: `-${'9'.repeat(10_000)}` }, 'holder').limit).toBe(1);
  });

  it.each(['abc', '1.5', '', '1e3', ['1', '2']])('refuses limit %p with invalid_input', (limit) => {
    expect(() => parsePageRequest({ limit } as never, 'holder')).toThrow(DomainException);
    try {
      parsePageRequest({ limit } as never, 'holder');
    } catch (error) {
      expect((error as DomainException).definition.detailKey).toBe('errors.common.validation.invalid_input');
      expect((error as DomainException).extras.field).toBe('limit');
    }
  });

  it('passes the cursor through and treats an empty cursor as the first page', () => {
    expect(parsePageRequest({ cursor: 'abc' }, 'holder').cursor).toBe('abc');
    expect(parsePageRequest({ cursor: '' }, 'holder').cursor).toBeUndefined();
  });
});
