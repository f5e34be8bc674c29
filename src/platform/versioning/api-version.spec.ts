import { DomainException } from '../errors/domain.exception.js';
import { CURRENT_API_VERSION, resolveApiVersion } from './api-version.js';

const keyOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return (error as DomainException).definition.status;
  }
  return undefined;
};

describe('resolveApiVersion', () => {
  it('serves the current version when the header is absent or names it', () => {
    expect(resolveApiVersion(undefined, [])).toBe(CURRENT_API_VERSION);
    expect(resolveApiVersion('2026-05-16', [])).toBe('2026-05-16');
  });

  it('answers 410 for a sunset version and 400 for anything else unsupported', () => {
    expect(keyOf(() => resolveApiVersion('2025-01-01', ['2025-01-01']))).toBe(410);
    expect(keyOf(() => resolveApiVersion('2025-01-01', []))).toBe(400);
    expect(keyOf(() => resolveApiVersion('', []))).toBe(400);
    expect(keyOf(() => resolveApiVersion('latest', []))).toBe(400);
  });
});
