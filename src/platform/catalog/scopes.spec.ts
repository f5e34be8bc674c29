import { Scope, grants, isScope, permissionForScope } from './scopes.js';

describe('scopes', () => {
  it('grants an exact scope', () => {
    expect(grants([Scope.FinBillsRead], Scope.FinBillsRead)).toBe(true);
    expect(grants([Scope.FinBillsRead], Scope.FinInvoicesRead)).toBe(false);
  });

  it('lets a write scope include its read scope, not the reverse', () => {
    expect(grants([Scope.FinInvoicesWrite], Scope.FinInvoicesRead)).toBe(true);
    expect(grants([Scope.FinInvoicesRead], Scope.FinInvoicesWrite)).toBe(false);
  });

  it('lets int:* grant every scope, including support-only ones', () => {
    for (const scope of Object.values(Scope)) expect(grants([Scope.All], scope)).toBe(true);
  });

  it('ignores unknown strings', () => {
    expect(isScope('int:fin.invoices:delete')).toBe(false);
    expect(grants(['int:fin.invoices:delete'], Scope.FinInvoicesRead)).toBe(false);
  });

  it('names permissions without the int: prefix', () => {
    expect(permissionForScope(Scope.FmVehiclesRead)).toBe('fm.vehicles:read');
  });
});
