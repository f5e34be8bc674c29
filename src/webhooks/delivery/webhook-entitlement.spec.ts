import { AccessService } from '../../platform/access/access.service.js';
import { Scope } from '../../platform/catalog/scopes.js';
import { deliveryRefusal, type EntitlementEndpoint, type EntitlementKey, entitlementKeyOf, keyStateAt } from './webhook-entitlement.js';

const access = new AccessService();
const at = new Date('2026-05-16T12:00:00Z');
const before = new Date('2026-05-16T11:00:00Z');
const after = new Date('2026-05-16T13:00:00Z');
const endpoint: EntitlementEndpoint = { status: 'active', piiEnabled: false };
const key: EntitlementKey = { scopes: [Scope.FinInvoicesRead, Scope.HrEmployeesRead], revokedAt: null, expiresAt: null, deletedAt: null };
const refusal = (e: EntitlementEndpoint, k: EntitlementKey | null, type: string) => deliveryRefusal(access, e, k, type, at);

describe('deliveryRefusal', () => {
  it('entitles an active endpoint whose valid key holds the scope', () => {
    expect(refusal(endpoint, key, 'fin.invoice.created')).toBeNull();
    expect(refusal(endpoint, { ...key, scopes: [Scope.FinInvoicesWrite] }, 'fin.invoice.paid')).toBeNull();
    expect(refusal(endpoint, { ...key, scopes: [Scope.All] }, 'fm.work_order.created')).toBeNull();
  });

  it('refuses paused and disabled endpoints', () => {
    expect(refusal({ ...endpoint, status: 'paused' }, key, 'fin.invoice.created')).toBe('endpoint_disabled');
    expect(refusal({ ...endpoint, status: 'disabled' }, key, 'fin.invoice.created')).toBe('endpoint_disabled');
    expect(refusal({ ...endpoint, status: 'paused' }, { ...key, scopes: [] }, 'fin.invoice.created')).toBe('endpoint_disabled');
  });

  it('refuses for the key, not the pause its revocation caused, when both hold', () => {
    // Before: endpoint_disabled, so a revoked key's deliveries never showed api_key_inactive (spec 3).
    expect(refusal({ ...endpoint, status: 'paused' }, { ...key, revokedAt: before }, 'fin.invoice.created')).toBe('api_key_inactive');
  });

  it('refuses a key that is gone, revoked, expired or deleted at the moment, not one that expires later', () => {
    expect(refusal(endpoint, null, 'fin.invoice.created')).toBe('api_key_inactive');
    expect(refusal(endpoint, { ...key, expiresAt: before }, 'fin.invoice.created')).toBe('api_key_inactive');
    expect(refusal(endpoint, { ...key, deletedAt: at }, 'fin.invoice.created')).toBe('api_key_inactive');
    expect(refusal(endpoint, { ...key, revokedAt: before }, 'fin.invoice.created')).toBe('api_key_inactive');
    expect(refusal(endpoint, { ...key, expiresAt: after }, 'fin.invoice.created')).toBeNull();
  });

  it('tells revoked from expired and deleted keys (the reason an endpoint is paused with)', () => {
    expect(keyStateAt({ ...key, revokedAt: before }, at)).toBe('revoked');
    expect(keyStateAt({ ...key, expiresAt: before }, at)).toBe('expired');
    expect(keyStateAt(null, at)).toBe('deleted');
    expect(keyStateAt({ ...key, expiresAt: after }, at)).toBe('active');
  });

  it('refuses a key without the event family scope', () => {
    expect(refusal(endpoint, key, 'fm.work_order.created')).toBe('api_key_scope_insufficient');
  });

  it('sends personal-data events only to granted endpoints', () => {
    expect(refusal(endpoint, key, 'hr.employee.created')).toBe('pii_capability_blocked');
    expect(refusal({ ...endpoint, piiEnabled: true }, key, 'hr.employee.created')).toBeNull();
  });
});

describe('entitlementKeyOf', () => {
  it('reads a left-joined key: none when the row has no key or its company was deactivated, else its scopes and moments', () => {
    expect(entitlementKeyOf({ scopes: null, revoked_at: null, expires_at: null, deleted_at: null, tenant_active: true })).toBeNull();
    const revokedAt = new Date('2026-05-01T00:00:00Z');
    expect(entitlementKeyOf({ scopes: ['int:fin.invoices:read'], revoked_at: null, expires_at: null, deleted_at: null, tenant_active: false })).toBeNull();
    expect(entitlementKeyOf({ scopes: ['int:fin.invoices:read'], revoked_at: revokedAt, expires_at: null, deleted_at: null, tenant_active: true })).toEqual({
      scopes: ['int:fin.invoices:read'],
      revokedAt,
      expiresAt: null,
      deletedAt: null,
    });
  });
});
