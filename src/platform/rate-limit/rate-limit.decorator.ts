import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import { NAMED_RATE_LIMITS, type RateLimitName } from './rate-limit.policies.js';

export const RATE_LIMIT_METADATA = 'integrations:rate-limit';
/**
 * Set on routes whose repeats may be answered from storage (`@Idempotent`): a 429 of the route's
 * own limit is then held back for the idempotency interceptor, which answers a repeat's stored
 * first answer, or the 429.
 */
export const STORED_REPEATS_METADATA = 'integrations:rate-limit:stored-repeats';

/**
 * Subjects a route to a named limit of `NAMED_RATE_LIMITS` in addition to the general one.
 * Over the limit: 429 with Retry-After. The OpenAPI operation lists the windows.
 */
export function RateLimit(name: RateLimitName): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(RATE_LIMIT_METADATA, name),
    ApiExtension(
      'x-rate-limit',
      NAMED_RATE_LIMITS[name].map((window) => ({ name: window.id, limit: window.points, window_seconds: window.durationSeconds })),
    ),
  );
}
