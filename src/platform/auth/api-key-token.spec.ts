import { generateApiKey, hashSecret, parseApiKey, secretMatches } from './api-key-token.js';

describe('API key tokens', () => {
  it('generates oh_live_<prefix>_<secret> that parses back to its prefix and secret', () => {
    const { token, prefix, secretHash } = generateApiKey();
    expect(token).toMatch(/^oh_live_[a-z0-9]{12}_[A-Za-z0-9]{43}$/);
    const parsed = parseApiKey(token)!;
    expect(parsed.prefix).toBe(prefix);
    expect(secretMatches(parsed.secret, secretHash)).toBe(true);
  });

  it('never generates the same key twice', () => {
    const tokens = new Set(Array.from({ length: 200 }, () => generateApiKey().token));
    expect(tokens.size).toBe(200);
  });

  it.each(['', 'oh_live_', 'oht_abc', 'Bearer x', 'oh_test_abcdefghijkl_' + 'a'.repeat(43), 'oh_live_ABCDEFGHIJKL_' + 'a'.repeat(43)])(
    'refuses %p',
    (token) => expect(parseApiKey(token)).toBeNull(),
  );

  it('rejects a wrong secret and a wrong-length hash', () => {
    const { secretHash } = generateApiKey();
    expect(secretMatches('x'.repeat(43), secretHash)).toBe(false);
    expect(secretMatches('x', hashSecret('x').subarray(0, 16))).toBe(false);
  });
});
