import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { SealedSecrets } from '../../platform/crypto/sealed-secrets.js';
import { TenantData } from '../../platform/tenancy/tenant-data.js';
import { TenantsService } from '../../platform/tenancy/tenants.service.js';

interface SealedRow {
  id: string;
  secret_ciphertext: Buffer;
  previous_secret_ciphertext: Buffer | null;
}

/**
 * Registers the endpoints' signing secrets (current and previous) with `secrets:reseal`, which
 * seals them again under SECRETS_KEY, company by company, each in one transaction.
 */
@Injectable()
export class WebhookSecretsReseal implements OnModuleInit {
  constructor(
    @Inject(SealedSecrets) private readonly sealed: SealedSecrets,
    @Inject(TenantsService) private readonly tenants: TenantsService,
    @Inject(TenantData) private readonly data: TenantData,
  ) {}

  onModuleInit(): void {
    this.sealed.register('webhook_endpoints', (reseal) => this.reseal(reseal));
  }

  private async reseal(reseal: (sealed: Buffer) => Buffer | null): Promise<number> {
    let count = 0;
    for (const tenantId of await this.tenants.ids()) {
      count += await this.data.transaction(tenantId, async (scope) => {
        const rows = await scope.query<SealedRow>(
          `SELECT id, secret_ciphertext, previous_secret_ciphertext FROM webhook_endpoints WHERE tenant_id = $1 FOR UPDATE`,
        );
        let changed = 0;
        for (const row of rows) {
          const secret = reseal(row.secret_ciphertext);
          const previous = row.previous_secret_ciphertext && reseal(row.previous_secret_ciphertext);
          if (secret === null && previous === null) continue;
          await scope.query(
            `UPDATE webhook_endpoints SET secret_ciphertext = coalesce($3, secret_ciphertext), previous_secret_ciphertext = coalesce($4, previous_secret_ciphertext)
              WHERE tenant_id = $1 AND id = $2`,
            [row.id, secret, previous],
          );
          changed += 1;
        }
        return changed;
      });
    }
    return count;
  }
}
