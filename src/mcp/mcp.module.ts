import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { McpToken } from './mcp-token.entity.js';
import { McpTokensService } from './mcp-tokens.service.js';

/** The agent-tool server's credentials: issued and revoked by the CLI, checked by the server (McpServerModule). */
@Module({
  imports: [TypeOrmModule.forFeature([McpToken])],
  providers: [McpTokensService],
  exports: [McpTokensService],
})
export class McpModule {}
