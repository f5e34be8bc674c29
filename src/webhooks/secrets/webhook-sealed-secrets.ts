import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { SealedSecrets } from '../../platform/crypto/sealed-secrets.js';
import { TenantData } from '../../platform/tenancy/tenant-data.js';
import { TenantsService } from '../../platform/tenancy/tenants.service.js';

interface SealedRow {
  id: string;
  secret_ciphertext: Buffer;
  previous_secret_ciphertext: Buffer | null;
}

/**
 * Registers the endpoints' signing secrets (current and previous) with the platform's
 * SealedSecrets: `secrets:reseal` seals them again under SECRETS_KEY, company by company, each in
 * one transaction; the check at start of the API and the worker tries the newest of them.
 */
@Injectable()
export class WebhookSealedSecrets implements OnModuleInit {
  constructor(
    @Inject(SealedSecrets) private readonly sealed: SealedSecrets,
    @Inject(TenantsService) private readonly tenants: TenantsService,
    @Inject(TenantData) private readonly data: TenantData,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    this.sealed.register('webhook_endpoints', {
      reseal: (reseal) => this.reseal(reseal),
      newest: (limit) => this.newest(limit),
    });
  }

  /** The secrets set last, whatever the company: which key sealed them, not whose they are, is the question. */
  private async newest(limit: number): Promise<Buffer[]> {
    const rows: { secret_ciphertext: Buffer }[] = await this.dataSource.query(
      `SELECT secret_ciphertext FROM webhook_endpoints ORDER BY updated_at DESC LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.secret_ciphertext);
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
