import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { Scope } from '../catalog/scopes.js';
import { DomainException } from '../errors/domain.exception.js';
import type { AuthContext } from './auth-context.js';
import { ApiKey, apiKeyState, type ApiKeyState } from './api-key.entity.js';
import { generateApiKey, hashSecret, parseApiKey, secretMatches } from './api-key-token.js';

export interface CreateApiKeyInput {
  tenantId: string;
  scopes: Scope[];
  expiresAt?: Date;
  userId?: string;
  name?: string;
}

const DUMMY_HASH = hashSecret('not-a-key');

const AUTHENTICATE_SQL = `
  SELECT k.id, k.tenant_id, k.secret_hash, k.scopes, k.expires_at, k.revoked_at, k.deleted_at, k.created_by_user_id,
         t.slug AS tenant_slug, t.active AS tenant_active
    FROM api_keys k
    JOIN tenants t ON t.id = k.tenant_id
   WHERE k.prefix = $1`;

interface AuthenticateRow {
  id: string;
  tenant_id: string;
  secret_hash: Buffer;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  deleted_at: Date | null;
  created_by_user_id: string | null;
  tenant_slug: string;
  tenant_active: boolean;
}

@Injectable()
export class ApiKeysService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** `manager`: the transaction to create the key in (seed:demo), else its own statement. */
  async create(input: CreateApiKeyInput, manager: EntityManager = this.dataSource.manager): Promise<{ id: string; key: string }> {
    const { token, prefix, secretHash } = generateApiKey();
    const key = await manager.getRepository(ApiKey).save({
      tenantId: input.tenantId,
      prefix,
      secretHash,
      scopes: [...new Set(input.scopes)],
      expiresAt: input.expiresAt ?? null,
      createdByUserId: input.userId ?? null,
      name: input.name ?? null,
    });
    return { id: key.id, key: token };
  }

  /** Sets the key's state as the applications would: revoke, expire now, or delete. */
  async changeState(id: string, change: Exclude<ApiKeyState, 'active'>): Promise<{ id: string; state: ApiKeyState }> {
    const column = { revoked: 'revokedAt', expired: 'expiresAt', deleted: 'deletedAt' } as const;
    const repository = this.dataSource.getRepository(ApiKey);
    const result = await repository.update({ id }, { [column[change]]: () => 'clock_timestamp()' });
    if (!result.affected) throw new Error(`API key ${id} not found`);
    const key = await repository.findOneByOrFail({ id });
    return { id, state: apiKeyState(key) };
  }

  async findById(id: string): Promise<ApiKey | null> {
    return this.dataSource.getRepository(ApiKey).findOneBy({ id });
  }

  /**
   * Resolves a bearer token to its caller. Every failure is the same 401 so a caller cannot
   * tell a wrong secret from an unknown prefix; a key of an inactive company is a 404.
   */
  async authenticate(authorization: string | undefined): Promise<AuthContext> {
    const token = /^Bearer +(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (!token) throw new DomainException('Unauthenticated', 'Send an API key as "Authorization: Bearer oh_live_…".');
    if (token.startsWith('oht_')) {
      throw new DomainException('Unauthenticated', 'Agent-tool tokens are accepted only by the tool server.');
    }
    const parsed = parseApiKey(token);
    if (!parsed) throw new DomainException('Unauthenticated', 'The API key is malformed.');

    // One plain statement: this runs on every request, so it skips the query builder and hydration.
    const [row] = (await this.dataSource.query(AUTHENTICATE_SQL, [parsed.prefix])) as AuthenticateRow[];
    const valid = secretMatches(parsed.secret, row?.secret_hash ?? DUMMY_HASH) && row !== undefined;
    if (!valid || apiKeyState({ deletedAt: row.deleted_at, revokedAt: row.revoked_at, expiresAt: row.expires_at }) !== 'active') {
      throw new DomainException('Unauthenticated', 'The API key is invalid, revoked, expired or deleted.');
    }
    if (!row.tenant_active) throw new DomainException('TenantNotFound', 'The company of this API key is no longer active.');
    return { tenantId: row.tenant_id, tenantSlug: row.tenant_slug, apiKeyId: row.id, scopes: row.scopes, userId: row.created_by_user_id };
  }
}
