import { isStoredResponse, isValidIdempotencyKey } from './idempotency-policy.js';

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

describe('isValidIdempotencyKey', () => {
  it.each(['a', 'order-2026-05-16/7', 'with space inside', '~!@#$%^&*()', 'x'.repeat(255)])('accepts %j', (key) => {
    expect(isValidIdempotencyKey(key)).toBe(true);
  });

  it.each(['', 'x'.repeat(256), 'tab\there', 'ümlaut', 'bell\u0007'])('refuses %j', (key) => {
    expect(isValidIdempotencyKey(key)).toBe(false);
  });
});
