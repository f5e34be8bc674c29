import type { Scope } from '../catalog/scopes.js';
import { DomainException } from '../errors/domain.exception.js';

/** 403 `missing_scope` naming the first missing scope, plus `missing_scopes` when several are missing (spec 5.4, 6.2). */
export function missingScope(missing: readonly Scope[], detail = `The API key needs the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`): DomainException {
  return new DomainException('MissingScope', detail, { missing_scope: missing[0], ...(missing.length > 1 ? { missing_scopes: [...missing] } : {}) });
}
