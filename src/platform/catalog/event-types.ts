import { Scope } from './scopes.js';

/**
 * The event catalogue (spec section 6): every event type with the scope a key needs to
 * subscribe to it and whether it carries personal data (delivered only to endpoints that
 * support enabled for personal data). `scope: Scope.All` marks events without a read endpoint.
 */
export interface EventDefinition {
  readonly scope: Scope;
  readonly personalData: boolean;
  readonly description: string;
}

const event = (scope: Scope, description: string, personalData = false): EventDefinition => ({ scope, personalData, description });

export const EventCatalog = {
  'fin.invoice.created': event(Scope.FinInvoicesRead, 'A draft invoice was created.'),
  'fin.invoice.updated': event(Scope.FinInvoicesRead, 'A draft invoice was changed.'),
  'fin.invoice.voided': event(Scope.FinInvoicesRead, 'An issued invoice was voided.'),
  'fin.invoice.paid': event(Scope.FinInvoicesRead, 'A payment settled an invoice in full.'),

  'fm.vehicle.created': event(Scope.FmVehiclesRead, 'A vehicle was added to the fleet.'),
  'fm.vehicle.updated': event(Scope.FmVehiclesRead, 'A vehicle record changed.'),
  'fm.vehicle.deleted': event(Scope.FmVehiclesRead, 'A vehicle was removed from the fleet.'),

  'identity.user.created': event(Scope.IdentityUsersRead, 'A user was created.', true),
  'identity.user.deactivated': event(Scope.IdentityUsersRead, 'A user was deactivated.', true),
  'identity.user.reactivated': event(Scope.IdentityUsersRead, 'A user was reactivated.', true),

  'messaging.message.sent': event(Scope.MessagingMessagesRead, 'A message was sent.', true),
} as const satisfies Record<string, EventDefinition>;

export type EventType = keyof typeof EventCatalog;

export const EVENT_TYPES = Object.keys(EventCatalog) as EventType[];

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EventCatalog, value);
}
