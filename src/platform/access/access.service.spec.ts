import { EventCatalog } from '../catalog/event-types.js';
import { Scope } from '../catalog/scopes.js';
import { AccessService, type EventSubscriber } from './access.service.js';

describe('AccessService', () => {
  const access = new AccessService();

  describe('REST scopes', () => {
    it('names the scopes a key lacks; int:* and a write scope grant their reads', () => {
      expect(access.missingScopes([Scope.FinInvoicesRead], [Scope.FinInvoicesRead, Scope.FmVehiclesRead])).toEqual([Scope.FmVehiclesRead]);
      expect(access.missingScopes([Scope.FinInvoicesWrite], [Scope.FinInvoicesRead])).toEqual([]);
      expect(access.missingScopes([Scope.All], [Scope.WebhooksManage, Scope.HrEmployeesRead])).toEqual([]);
      expect(access.missingScopes([], [Scope.FinBillsRead])).toEqual([Scope.FinBillsRead]);
    });
  });

  describe('agent tools', () => {
    const caller = (tools: string[], permissions: string[]) => ({ tools, permissions });

    it('allows a tool the token names when its person holds every permission it reads', () => {
      expect(access.toolRefusal(caller(['list_invoices'], ['fin.invoices:read']), 'list_invoices', [Scope.FinInvoicesRead])).toBeNull();
      expect(access.toolRefusal(caller(['*'], ['fin.invoices:write']), 'get_invoices', [Scope.FinInvoicesRead])).toBeNull();
      expect(access.toolRefusal(caller(['*'], ['fm.vehicles:read', 'fm.work_orders:read']), 'summarise_fleet', [Scope.FmVehiclesRead, Scope.FmWorkOrdersRead])).toBeNull();
    });

    it('refuses a tool the token does not name, whatever the permissions', () => {
      expect(access.toolRefusal(caller(['list_invoices'], ['fin.invoices:read']), 'get_invoices', [Scope.FinInvoicesRead])).toBe('tool_not_granted');
    });

    it('refuses a tool whose permission the person no longer holds, or holds only in part', () => {
      expect(access.toolRefusal(caller(['*'], []), 'list_invoices', [Scope.FinInvoicesRead])).toBe('permission_withdrawn');
      expect(access.toolRefusal(caller(['*'], ['fm.vehicles:read']), 'summarise_fleet', [Scope.FmVehiclesRead, Scope.FmWorkOrdersRead])).toBe('permission_withdrawn');
    });

    it('never reads a * permission as every scope', () => {
      expect(access.personMay(['*'], Scope.FinInvoicesRead)).toBe(false);
    });
  });

  describe('the events feed', () => {
    it('shows an event exactly when the key could subscribe to its type: family read scope, write counting, int:* for the rest', () => {
      expect(access.eventVisible([Scope.FinInvoicesRead], EventCatalog['fin.invoice.created'])).toBe(true);
      expect(access.eventVisible([Scope.FinInvoicesWrite], EventCatalog['fin.invoice.paid'])).toBe(true);
      expect(access.eventVisible([Scope.FmVehiclesRead], EventCatalog['fin.invoice.created'])).toBe(false);
      expect(access.eventVisible([Scope.FinInvoicesRead, Scope.FmVehiclesRead], EventCatalog['datev.export.started'])).toBe(false);
      expect(access.eventVisible([Scope.All], EventCatalog['datev.export.started'])).toBe(true);
      expect(access.eventVisible([Scope.IdentityUsersRead], EventCatalog['identity.user.created'])).toBe(true);
    });

    it('does not ask for the personal-data grant: the feed is a read with the key\'s own scopes', () => {
      expect(access.eventVisible([Scope.FmVehiclesRead], EventCatalog['fm.vehicle.updated'])).toBe(true);
    });
  });

  describe('per-event webhook entitlement', () => {
    const key = (overrides: Partial<EventSubscriber> = {}): EventSubscriber => ({
      scopes: [Scope.FinInvoicesRead, Scope.FmVehiclesRead],
      keyState: 'active',
      personalDataGranted: false,
      ...overrides,
    });

    it('delivers an event whose read scope the active key holds', () => {
      expect(access.eventRefusal(key(), EventCatalog['fin.invoice.created'])).toBeNull();
      expect(access.eventRefusal(key({ scopes: [Scope.All], personalDataGranted: true }), EventCatalog['identity.user.created'])).toBeNull();
    });

    it.each(['revoked', 'expired', 'deleted'] as const)('refuses every event to a %s key', (keyState) => {
      expect(access.eventRefusal(key({ keyState }), EventCatalog['fin.invoice.created'])).toBe('api_key_inactive');
    });

    it('refuses an event whose read scope the key lacks', () => {
      expect(access.eventRefusal(key(), EventCatalog['hr.employee.created'])).toBe('api_key_scope_insufficient');
    });

    it('refuses personal data to an endpoint support did not enable for it', () => {
      expect(access.eventRefusal(key(), EventCatalog['fm.vehicle.updated'])).toBe('pii_capability_blocked');
      expect(access.eventRefusal(key({ personalDataGranted: true }), EventCatalog['fm.vehicle.updated'])).toBeNull();
    });
  });
});
