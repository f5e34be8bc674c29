import { EVENT_TYPES, EventCatalog } from '../platform/catalog/event-types.js';
import { Scope } from '../platform/catalog/scopes.js';
import { DomainException } from '../platform/errors/domain.exception.js';
import { AccessService } from '../platform/access/access.service.js';
import { checkSubscription as check } from './subscriptions.js';

const access = new AccessService();
const checkSubscription = (types: readonly string[], scopes: readonly string[]) => check(types, scopes, access);

function failure(types: string[], scopes: string[]): DomainException {
  try {
    checkSubscription(types, scopes);
  } catch (error) {
    if (error instanceof DomainException) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('checkSubscription', () => {
  it('accepts a family with its read scope, or with the write scope that includes it', () => {
    expect(checkSubscription(['fin.invoice.created', 'fin.invoice.paid'], [Scope.FinInvoicesRead])).toEqual(['fin.invoice.created', 'fin.invoice.paid']);
    expect(checkSubscription(['fin.invoice.voided'], [Scope.FinInvoicesWrite])).toEqual(['fin.invoice.voided']);
  });

  it('drops repeats and keeps the order', () => {
    expect(checkSubscription(['fm.vehicle.updated', 'fm.vehicle.created', 'fm.vehicle.updated'], [Scope.FmVehiclesRead])).toEqual([
      'fm.vehicle.updated',
      'fm.vehicle.created',
    ]);
  });

  it('names exactly the unknown types', () => {
    const error = failure(['fin.invoice.created', 'fin.invoice.deleted', 'fm.vehicle.*', 'fin.invoice.deleted'], [Scope.All]);
    expect(error.errorName).toBe('WebhookUnknownEventType');
    expect(error.extras.unknown_event_types).toEqual(['fin.invoice.deleted', 'fm.vehicle.*']);
  });

  it('needs int:* for "*" and for types without a read endpoint', () => {
    expect(checkSubscription(['*'], [Scope.All])).toEqual(['*']);
    expect(failure(['*'], [Scope.FinInvoicesRead, Scope.WebhooksManage]).extras).toEqual({ missing_scope: Scope.All });
    expect(failure(['datev.export.completed'], [Scope.WebhooksManage]).extras).toEqual({ missing_scope: Scope.All });
    expect(checkSubscription(['compliance.whistleblowing_report.received'], [Scope.All])).toHaveLength(1);
  });

  it('needs the two support-only scopes for identity and messaging events', () => {
    expect(failure(['identity.user.created'], [Scope.WebhooksManage]).extras).toEqual({ missing_scope: Scope.IdentityUsersRead });
    expect(checkSubscription(['identity.user.created', 'messaging.message.sent'], [Scope.IdentityUsersRead, Scope.MessagingMessagesRead])).toHaveLength(2);
  });

  it('lists every missing scope when several are missing', () => {
    const error = failure(['fin.invoice.created', 'hr.employee.created', 'messaging.message.sent'], [Scope.WebhooksManage]);
    expect(error.errorName).toBe('MissingScope');
    expect(error.extras).toEqual({
      missing_scope: Scope.FinInvoicesRead,
      missing_scopes: [Scope.FinInvoicesRead, Scope.HrEmployeesRead, Scope.MessagingMessagesRead],
    });
  });

  it('refuses "*" beside other types', () => {
    expect(failure(['*', 'fin.invoice.created'], [Scope.All]).errorName).toBe('WebhookValidationFailed');
  });

  it('accepts every catalogue type for an int:* key', () => {
    expect(checkSubscription(EVENT_TYPES, [Scope.All])).toHaveLength(EVENT_TYPES.length);
    expect(EVENT_TYPES.filter((type) => EventCatalog[type].scope === Scope.All)).toHaveLength(64);
  });
});
