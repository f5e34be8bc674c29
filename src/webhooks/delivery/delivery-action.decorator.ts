import { applyDecorators, HttpCode } from '@nestjs/common';
import { Idempotent } from '../../platform/idempotency/idempotent.decorator.js';
import { RateLimit } from '../../platform/rate-limit/rate-limit.decorator.js';

/**
 * An operation that queues a delivery for an endpoint (replay, retry, test event): 202 with the
 * delivery, `Idempotency-Key` honoured, and one shared limit, the replays' 60 per minute per key.
 */
export function DeliveryAction(): MethodDecorator {
  return applyDecorators(HttpCode(202), Idempotent(), RateLimit('webhook_replay'));
}
