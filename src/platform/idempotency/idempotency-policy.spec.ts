import { isReplayableBody, isStoredResponse, isValidIdempotencyKey, MAX_REPLAYABLE_BODY_BYTES, storeRetryWaits } from './idempotency-policy.js';

describe('isStoredResponse', () => {
  it.each([200, 201, 204, 400, 403, 404, 409, 429, 499])('stores %i', (status) => {
    expect(isStoredResponse(status)).toBe(true);
  });

  it.each([100, 500, 502, 503])('does not store %i', (status) => {
    expect(isStoredResponse(status)).toBe(false);
  });

  it('stores a 422 of an ordinary validation failure', () => {
    expect(isStoredResponse(422, 'errors.integrations.invoices.validation_failed')).toBe(true);
    expect(isStoredResponse(422, 'errors.integrations.invoices.required')).toBe(true);
  });

  it('does not store the two retryable 422s', () => {
    expect(isStoredResponse(422, 'errors.common.validation.invalid_reference')).toBe(false);
    expect(isStoredResponse(422, 'errors.common.validation.invalid_input')).toBe(false);
  });
});

describe('isReplayableBody', () => {
  it('keeps no body and bodies up to 256 KiB, counted in UTF-8 bytes', () => {
    expect(isReplayableBody(null)).toBe(true);
    expect(isReplayableBody('x'.repeat(MAX_REPLAYABLE_BODY_BYTES))).toBe(true);
    expect(isReplayableBody('x'.repeat(MAX_REPLAYABLE_BODY_BYTES + 1))).toBe(false);
    // Half as many characters, each two bytes: one more byte than the limit.
    expect(isReplayableBody(`${'é'.repeat(MAX_REPLAYABLE_BODY_BYTES / 2)}x`)).toBe(false);
  });
});

describe('isValidIdempotencyKey', () => {
  it.each(['a', 'order-2026-05-16/7', 'with space inside', '~!@#$%^&*()', 'x'.repeat(255)])('accepts %j', (key) => {
    expect(isValidIdempotencyKey(key)).toBe(true);
  });

  it.each(['', 'x'.repeat(256), 'tab\there', 'ümlaut', 'bell\u0007'])('refuses %j', (key) => {
    expect(isValidIdempotencyKey(key)).toBe(false);
  });
});

describe('storeRetryWaits', () => {
  it('doubles from the first wait and tries last at the limit, not a whole doubling before it', () => {
    // Before: 1, 2, 4, 8 and 16 s, the last try 31 s in: an outage of 40 s lost the answer for good.
    expect(storeRetryWaits(1000, 60_000)).toEqual([1000, 2000, 4000, 8000, 16_000, 29_000]);
    expect(storeRetryWaits(1000, 60_000).reduce((sum, wait) => sum + wait, 0)).toBe(60_000);
    expect(storeRetryWaits(1000, 1000)).toEqual([1000]);
  });
});
