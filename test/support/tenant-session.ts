import type { INestApplicationContext } from '@nestjs/common';
import { ApiKeysService } from '../../src/platform/auth/api-keys.service.js';
import { Scope } from '../../src/platform/catalog/scopes.js';
import type { Tenant } from '../../src/platform/tenancy/tenant.entity.js';
import { TenantsService } from '../../src/platform/tenancy/tenants.service.js';

export interface TenantSession {
  tenant: Tenant;
  /** Bearer key with the requested scopes. */
  key: string;
  keyId: string;
  userId: string;
  /** `Authorization` header value for `key`. */
  auth: string;
  /** Creates another key of the same company. */
  newKey: (scopes: Scope[], options?: { expiresAt?: Date }) => Promise<{ id: string; key: string; auth: string }>;
}

/** A fresh company with a user and an API key, like novu's UserSession. */
export async function createTenantSession(
  app: INestApplicationContext,
  options: { scopes?: Scope[]; currencies?: string[]; name?: string } = {},
): Promise<TenantSession> {
  const tenants = app.get(TenantsService);
  const keys = app.get(ApiKeysService);
  const tenant = await tenants.create({ name: options.name ?? 'Test Company', currencies: options.currencies ?? ['EUR'] });
  const user = await tenants.createUser(tenant.id, `owner-${tenant.slug}@example.test`, []);
  const newKey = async (scopes: Scope[], keyOptions: { expiresAt?: Date } = {}) => {
    const created = await keys.create({ tenantId: tenant.id, scopes, userId: user.id, expiresAt: keyOptions.expiresAt });
    return { ...created, auth: `Bearer ${created.key}` };
  };
  const main = await newKey(options.scopes ?? [Scope.All]);
  return { tenant, key: main.key, keyId: main.id, userId: user.id, auth: main.auth, newKey };
}
