import type { WebhookDisabledReason, WebhookEndpointStatus } from './webhook-endpoint.entity.js';

export type EndpointAction = 'pause' | 'resume' | 'delete';

export interface EndpointState {
  status: WebhookEndpointStatus;
  disabledReason: WebhookDisabledReason | null;
}

/** What an action does to an endpoint (spec section 3 and the quota rule of section 8). */
export type Transition =
  | { kind: 'gone' }
  | { kind: 'unchanged' }
  | {
      kind: 'move';
      to: EndpointState;
      /** Leaving `disabled` for `active` or `paused` takes a quota place again. */
      takesQuotaPlace: boolean;
      /** Resuming needs the owning key neither revoked, expired nor deleted. */
      needsActiveOwner: boolean;
    };

/**
 * The endpoint state machine:
 *
 * | from                        | action | to                                  |
 * |-----------------------------|--------|-------------------------------------|
 * | active                      | pause  | paused (no reason)                  |
 * | paused                      | pause  | unchanged (reason kept)             |
 * | disabled (auto)             | pause  | paused, reason kept; quota place    |
 * | paused                      | resume | active; owning key active           |
 * | disabled (auto)             | resume | active; owning key active; quota    |
 * | active                      | resume | unchanged                           |
 * | active, paused, disabled    | delete | disabled, user_deleted              |
 * | deleted (user_deleted)      | any    | 404                                 |
 */
export function transition(from: EndpointState, action: EndpointAction): Transition {
  if (from.disabledReason === 'user_deleted') return { kind: 'gone' };
  switch (action) {
    case 'delete':
      return { kind: 'move', to: { status: 'disabled', disabledReason: 'user_deleted' }, takesQuotaPlace: false, needsActiveOwner: false };
    case 'pause':
      if (from.status === 'paused') return { kind: 'unchanged' };
      return {
        kind: 'move',
        to: { status: 'paused', disabledReason: from.status === 'disabled' ? from.disabledReason : null },
        takesQuotaPlace: from.status === 'disabled',
        needsActiveOwner: false,
      };
    case 'resume':
      if (from.status === 'active') return { kind: 'unchanged' };
      return { kind: 'move', to: { status: 'active', disabledReason: null }, takesQuotaPlace: from.status === 'disabled', needsActiveOwner: true };
  }
}

/** Endpoints that hold a quota place: active or paused (spec section 8). */
export const QUOTA_STATUSES: readonly WebhookEndpointStatus[] = ['active', 'paused'];
export const MAX_ENDPOINTS_PER_COMPANY = 5;
