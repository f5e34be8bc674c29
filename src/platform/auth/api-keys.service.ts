import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { Scope } from '../catalog/scopes.js';
import { AppConfig } from '../config/app-config.js';
import { DomainException } from '../errors/domain.exception.js';
import { checkedName } from '../validation/names.js';
import { ApiKey, apiKeyState, type ApiKeyState } from './api-key.entity.js';
import { TenantData } from '../tenancy/tenant-data.js';
import { User } from '../tenancy/user.entity.js';
import { ApiKeyHooks } from './api-key-hooks.js';
import { afterEveryProcessDropped, keyChange } from '../auth-changes/auth-changes.js';
import { generateApiKey } from './api-key-token.js';

export interface CreateApiKeyInput {
  tenantId: string;
  scopes: Scope[];
  expiresAt?: Date;
  userId?: string;
  name?: string;
}

@Injectable()
export class ApiKeysService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(ApiKeyHooks) private readonly hooks: ApiKeyHooks,
    @Inject(TenantData) private readonly data: TenantData,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  /** `manager`: the transaction to create the key in (seed:demo), else its own statement. */
  async create(input: CreateApiKeyInput, manager: EntityManager = this.dataSource.manager): Promise<{ id: string; key: string }> {
    const name = input.name === undefined ? null : checkedName(input.name);
    const scope = this.data.forTenant(input.tenantId, manager);
    // A key of an inactive company would answer 404 from its first request, as its tokens are refused here too.
    if (!(await scope.tenantActive())) throw new DomainException('TenantNotFound', `Tenant ${input.tenantId} not found or not active`);
    // The person who asked for the key is one of the company's: never another company's.
    if (input.userId !== undefined && !(await scope.repository(User).exists({ id: input.userId }))) {
      throw new DomainException('UserNotFound', `User ${input.userId} not found in tenant ${input.tenantId}`, { field: 'user' });
    }
    const { token, prefix, secretHash } = generateApiKey();
    const key = await manager.getRepository(ApiKey).save({
      tenantId: input.tenantId,
      prefix,
      secretHash,
      scopes: [...new Set(input.scopes)],
      expiresAt: input.expiresAt ?? null,
      createdByUserId: input.userId ?? null,
      name,
    });
    return { id: key.id, key: token };
  }

  /**
   * Sets the key's state as the applications would: revoke, expire now, or delete. A revocation
   * runs the registered hooks in the same transaction. Returns once every API process has
   * confirmed that it dropped the key from its cache.
   */
  async changeState(id: string, change: Exclude<ApiKeyState, 'active'>): Promise<{ id: string; state: ApiKeyState }> {
    // A moment already past is kept: it is audit data, and deliveries judge a key at an event's time.
    const moment = {
      revoked: ['revokedAt', 'coalesce(revoked_at, clock_timestamp())'],
      expired: ['expiresAt', 'least(expires_at, clock_timestamp())'],
      deleted: ['deletedAt', 'coalesce(deleted_at, clock_timestamp())'],
    } as const;
    const [column, value] = moment[change];
    const owner = await this.data.forOwnerOf(ApiKey, id);
    const notFound = () => new DomainException('ApiKeyNotFound', `API key ${id} not found`);
    if (!owner) throw notFound();
    const key = await afterEveryProcessDropped(
      this.config.DATABASE_URL,
      () =>
        this.data.transaction(owner.tenantId, async (scope) => {
          const keys = scope.repository(ApiKey);
          if (!(await keys.update({ id }, { [column]: () => value }))) throw notFound();
          const changed = await keys.findOneOrFail({ id });
          if (change === 'revoked') await this.hooks.runRevoked({ id, tenantId: owner.tenantId }, scope);
          return changed;
        }),
      (changed) => keyChange(changed.prefix),
    );
    return { id, state: apiKeyState(key) };
  }
}
