import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, IsNull } from 'typeorm';
import { secretMatchesStored } from '../platform/auth/api-key-token.js';
import { bearerToken } from '../platform/auth/bearer-credentials.js';
import { hotQuery } from '../platform/database/hot-query.js';
import { DomainException } from '../platform/errors/domain.exception.js';
import { TenantData } from '../platform/tenancy/tenant-data.js';
import { Tenant } from '../platform/tenancy/tenant.entity.js';
import { User } from '../platform/tenancy/user.entity.js';
import { McpToken } from './mcp-token.entity.js';
import { generateMcpToken, normaliseTools, parseMcpToken } from './mcp-token.js';

export interface CreateMcpTokenInput {
  tenantId: string;
  userId: string;
  tools: readonly string[];
}

/** Who is calling the tool server, as it stands at this request. */
export interface McpCaller {
  tokenId: string;
  /** The token's public prefix, for logs. */
  prefix: string;
  tenantId: string;
  userId: string;
  /** Tool names the token names, or `['*']`. */
  tools: string[];
  /** The current permissions of the person who created the token. */
  permissions: string[];
}

// One statement per request: the token, its company and its person's permissions as they are now.
const AUTHENTICATE_SQL = `
  SELECT t.id, t.tenant_id, t.user_id, t.secret_hash, t.tools, t.revoked_at,
         c.slug AS tenant_slug, c.active AS tenant_active, u.permissions
    FROM mcp_tokens t
    JOIN tenants c ON c.id = t.tenant_id
    JOIN users u ON u.id = t.user_id AND u.tenant_id = t.tenant_id
   WHERE t.prefix = $1`;

const STILL_ACTIVE_SQL = `
  SELECT t.revoked_at IS NULL AND c.active AND u.permissions = $2 AS active
    FROM mcp_tokens t
    JOIN tenants c ON c.id = t.tenant_id
    JOIN users u ON u.id = t.user_id AND u.tenant_id = t.tenant_id
   WHERE t.id = $1`;

interface AuthenticateRow {
  id: string;
  tenant_id: string;
  user_id: string;
  secret_hash: Buffer;
  tools: string[];
  revoked_at: Date | null;
  tenant_slug: string;
  tenant_active: boolean;
  permissions: string[];
}

/** Agent-tool server tokens, issued by support for one person of an active company. */
@Injectable()
export class McpTokensService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(TenantData) private readonly data: TenantData,
  ) {}

  /** Returns the token once; only its prefix and hash are kept. `grantable`: the tools the server has (grantableToolNames). */
  async create(input: CreateMcpTokenInput, grantable: readonly string[], manager: EntityManager = this.dataSource.manager): Promise<{ id: string; token: string }> {
    const tools = normaliseTools(input.tools, grantable);
    const tenant = await manager.getRepository(Tenant).findOneBy({ id: input.tenantId });
    if (!tenant?.active) throw new DomainException('TenantNotFound', `Tenant ${input.tenantId} not found or not active`);
    const user = await manager.getRepository(User).findOneBy({ id: input.userId, tenantId: tenant.id });
    if (!user) throw new DomainException('UserNotFound', `User ${input.userId} not found in tenant ${tenant.id}`);

    const { token, prefix, secretHash } = generateMcpToken();
    const { id } = await manager.getRepository(McpToken).save({ tenantId: tenant.id, userId: user.id, prefix, secretHash, tools });
    return { id, token };
  }

  /** Whether the caller's token is still unrevoked, its company active and its person's permissions as read (read again after a wait). */
  async stillActive(caller: McpCaller): Promise<boolean> {
    const rows = await hotQuery<{ active: boolean }>(this.dataSource, 'mcp-token-still-active', STILL_ACTIVE_SQL, [caller.tokenId, caller.permissions]);
    return rows[0]?.active === true;
  }

  /** Revokes a token at once; revoking it again keeps the first revocation time. */
  async revoke(id: string): Promise<{ id: string; revoked_at: string }> {
    const owner = await this.data.forOwnerOf(McpToken, id);
    const tokens = owner?.repository(McpToken);
    await tokens?.update({ id, revokedAt: IsNull() }, { revokedAt: () => 'clock_timestamp()' });
    const token = await tokens?.findOne({ id });
    if (!token?.revokedAt) throw new DomainException('McpTokenNotFound', `MCP token ${id} not found`);
    return { id, revoked_at: token.revokedAt.toISOString() };
  }

  /**
   * Resolves `Authorization: Bearer oht_…` plus `X-OH-Tenant` (slug or id) to the caller. Every
   * failure — no or malformed token, unknown or revoked token, wrong secret, a tenant header
   * that is missing or names another company, an inactive company, an `oh_live_` API key — is
   * the same 401, so nothing can be probed.
   */
  async authenticate(authorization: string | undefined, tenantHeader: string | undefined): Promise<McpCaller> {
    const token = bearerToken(authorization);
    const parsed = token ? parseMcpToken(token) : null;
    const tenant = tenantHeader?.trim();
    if (!parsed || !tenant) throw unauthenticated();

    const [row] = await hotQuery<AuthenticateRow>(this.dataSource, 'mcp-token-by-prefix', AUTHENTICATE_SQL, [parsed.prefix]);
    if (!secretMatchesStored(parsed.secret, row?.secret_hash) || !row || row.revoked_at !== null || !row.tenant_active || (tenant !== row.tenant_slug && tenant.toLowerCase() !== row.tenant_id)) {
      throw unauthenticated();
    }
    return { tokenId: row.id, prefix: parsed.prefix, tenantId: row.tenant_id, userId: row.user_id, tools: row.tools, permissions: row.permissions };
  }
}

function unauthenticated(): DomainException {
  return new DomainException(
    'McpUnauthenticated',
    'Send "Authorization: Bearer oht_…" with an active agent-tool token and "X-OH-Tenant" with its company\'s slug or id.',
    {},
    { 'WWW-Authenticate': 'Bearer realm="mcp"' },
  );
}
