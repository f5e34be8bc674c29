import { applyDecorators } from '@nestjs/common';

/**
 * Makes a POST, PATCH or DELETE route honour the `Idempotency-Key` header (spec section 8).
 * Placeholder signature so feature modules can declare it; the platform work fills it in.
 */
export function Idempotent(): MethodDecorator {
  return applyDecorators();
}
