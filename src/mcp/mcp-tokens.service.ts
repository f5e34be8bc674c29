import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { Tenant } from '../platform/tenancy/tenant.entity.js';
import { User } from '../platform/tenancy/user.entity.js';
import { McpToken } from './mcp-token.entity.js';
import { generateMcpToken, normaliseTools } from './mcp-token.js';

export interface CreateMcpTokenInput {
  tenantId: string;
  userId: string;
  tools: readonly string[];
}

/** Agent-tool server tokens, issued by support for one person of an active company. */
@Injectable()
export class McpTokensService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Returns the token once; only its prefix and hash are kept. */
  async create(input: CreateMcpTokenInput, manager: EntityManager = this.dataSource.manager): Promise<{ id: string; token: string }> {
    const tools = normaliseTools(input.tools);
    const tenant = await manager.getRepository(Tenant).findOneBy({ id: input.tenantId });
    if (!tenant?.active) throw new Error(`Tenant ${input.tenantId} not found or not active`);
    const user = await manager.getRepository(User).findOneBy({ id: input.userId, tenantId: tenant.id });
    if (!user) throw new Error(`User ${input.userId} not found in tenant ${tenant.id}`);

    const { token, prefix, secretHash } = generateMcpToken();
    const { id } = await manager.getRepository(McpToken).save({ tenantId: tenant.id, userId: user.id, prefix, secretHash, tools });
    return { id, token };
  }
}
