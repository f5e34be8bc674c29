import type { AccessService, EventRefusal, EventSubscriber } from '../../platform/access/access.service.js';
import type { ApiKey } from '../../platform/auth/api-key.entity.js';
import { EventCatalog, isEventType } from '../../platform/catalog/event-types.js';
import type { WebhookEndpoint } from '../webhook-endpoint.entity.js';

/** Why an endpoint may not receive an event; also the `error_class` of a delivery refused at its attempt. */
export type DeliveryRefusal = 'endpoint_disabled' | EventRefusal;

export type EntitlementEndpoint = Pick<WebhookEndpoint, 'status' | 'piiEnabled'>;
export type EntitlementKey = Pick<ApiKey, 'scopes' | 'revokedAt' | 'expiresAt' | 'deletedAt'>;

/**
 * Per-event entitlement of a webhook endpoint (spec 5.8 and 6.4): may it receive an event of
 * this type at `at`? Used at fan-out (with the event's time) and again before every attempt
 * (with the attempt's time). Subscription and "created before the event" are the fan-out's
 * query; the endpoint must be active; the key and personal-data rules are the platform's
 * AccessService's. `null` means entitled.
 */
export function deliveryRefusal(
  access: AccessService,
  endpoint: EntitlementEndpoint,
  key: EntitlementKey | null,
  eventType: string,
  at: Date,
): DeliveryRefusal | null {
  const subscriber: EventSubscriber = { scopes: key?.scopes ?? [], keyState: keyStateAt(key, at), personalDataGranted: endpoint.piiEnabled };
  const refusal = isEventType(eventType) ? access.eventRefusal(subscriber, EventCatalog[eventType]) : 'api_key_scope_insufficient';
  // Revoking a key pauses its endpoint at once (spec 3): the deliveries it leaves pending fail
  // for the key, their cause (`api_key_inactive`), not for the pause the key caused.
  if (refusal === 'api_key_inactive') return refusal;
  if (endpoint.status !== 'active') return 'endpoint_disabled';
  return refusal;
}

/** The owning key's columns as a statement left-joins them (all null when the key is gone), and its company's state. */
export interface KeyColumns {
  scopes: string[] | null;
  revoked_at: Date | null;
  expires_at: Date | null;
  deleted_at: Date | null;
  tenant_active: boolean;
}

/**
 * The owning key of a left-joined row, or null when it no longer exists (`api_keys.scopes` is
 * never null) or its company was deactivated: a company's keys all go with it (spec 5.7), and
 * so do its events, never pushed to its receivers after it.
 */
export function entitlementKeyOf(row: KeyColumns): EntitlementKey | null {
  if (row.scopes === null || !row.tenant_active) return null;
  return { scopes: row.scopes, revokedAt: row.revoked_at, expiresAt: row.expires_at, deletedAt: row.deleted_at };
}

/** The owning key's state at a moment; a key that no longer exists counts as deleted. */
export function keyStateAt(key: EntitlementKey | null, at: Date): EventSubscriber['keyState'] {
  if (!key || passed(key.deletedAt, at)) return 'deleted';
  if (passed(key.revokedAt, at)) return 'revoked';
  if (passed(key.expiresAt, at)) return 'expired';
  return 'active';
}

/** Why an endpoint is paused when its key can no longer receive events (spec 3). */
export type KeyPauseReason = 'api_key_inactive' | 'api_key_revoked';

/** The reason to pause an endpoint whose key was refused as inactive at `at`: revoked, or expired or deleted. */
export function keyPauseReason(key: EntitlementKey | null, at: Date): KeyPauseReason {
  return keyStateAt(key, at) === 'revoked' ? 'api_key_revoked' : 'api_key_inactive';
}

function passed(moment: Date | null, at: Date): boolean {
  return moment !== null && moment.getTime() <= at.getTime();
}
