import type { AccessService } from '../platform/access/access.service.js';
import { missingScope } from '../platform/access/missing-scope.js';
import { EventCatalog, isEventType } from '../platform/catalog/event-types.js';
import { Scope } from '../platform/catalog/scopes.js';
import { DomainException } from '../platform/errors/domain.exception.js';

/** `["*"]`: every event type, now and later. */
export const ALL_EVENTS = '*';

/**
 * Checks an endpoint's `event_types` against the catalogue and the caller's scopes (spec 6.2)
 * and returns them without repeats, in the order given. `*` stands alone. Unknown types are
 * 422 `unknown_event_type` naming exactly the offenders; then each type needs its family's read
 * scope (a write scope counts), and `*` or a type without a read endpoint needs `int:*`: 403
 * `missing_scope`, with `missing_scopes` when several are missing.
 */
export function checkSubscription(eventTypes: readonly string[], heldScopes: readonly string[], access: AccessService): string[] {
  const types = [...new Set(eventTypes)];
  if (types.includes(ALL_EVENTS) && types.length > 1) {
    throw new DomainException('WebhookValidationFailed', '"*" subscribes to every event type and must be the only entry.', {
      errors: [{ path: 'event_types', code: 'invalid_value', message: 'event_types: "*" must be the only entry' }],
    });
  }
  const unknown = types.filter((type) => type !== ALL_EVENTS && !isEventType(type));
  if (unknown.length > 0) throw unknownEventTypes(unknown, 'event_types');
  const missing = access.missingScopes(heldScopes, requiredScopes(types));
  if (missing.length > 0) {
    throw missingScope(missing, `Subscribing to these event types needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`);
  }
  return types;
}

/**
 * Checked types (`checkSubscription`) against the scopes of the key that owns the endpoint,
 * when an `int:*` key changes another key's endpoint: events are delivered only as far as the
 * owner's scopes reach (spec 5.8), so a type it could never receive is refused, 403
 * `missing_scope` naming what the owner lacks, instead of a subscription that stays silent.
 */
export function checkOwnerCanReceive(types: readonly string[], ownerScopes: readonly string[], access: AccessService): void {
  const missing = access.missingScopes(ownerScopes, requiredScopes(types));
  if (missing.length > 0) {
    throw missingScope(
      missing,
      `The API key that owns this endpoint lacks the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, so the endpoint could never receive these event types.`,
    );
  }
}

function requiredScopes(types: readonly string[]): Scope[] {
  return [...new Set(types.map((type) => (isEventType(type) ? EventCatalog[type].scope : Scope.All)))];
}

/** 422 `unknown_event_type` naming exactly the offenders, wherever a request names event types. */
export function unknownEventTypes(unknown: readonly string[], field: string): DomainException {
  return new DomainException('WebhookUnknownEventType', `Not in the event catalogue: ${unknown.map((type) => JSON.stringify(type)).join(', ')}. GET /v1/event_types lists the types.`, {
    field,
    unknown_event_types: [...unknown],
  });
}
