import { Injectable } from '@nestjs/common';
import type { TenantScope } from '../tenancy/tenant-data.js';

export interface RevokedKey {
  id: string;
  tenantId: string;
}

/** Runs inside the revocation's transaction (`scope`: the key's company): what it writes commits or rolls back with it. */
export type KeyRevokedHook = (key: RevokedKey, scope: TenantScope) => Promise<void>;

/**
 * What feature modules attach to API-key changes, so the platform never imports them: a module
 * registers its hook at start (e.g. webhooks pauses the key's endpoints on revocation).
 */
@Injectable()
export class ApiKeyHooks {
  private readonly revoked: KeyRevokedHook[] = [];

  onRevoked(hook: KeyRevokedHook): void {
    this.revoked.push(hook);
  }

  async runRevoked(key: RevokedKey, scope: TenantScope): Promise<void> {
    for (const hook of this.revoked) await hook(key, scope);
  }
}
