import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { McpToken } from './mcp-token.entity.js';
import { McpTokensService } from './mcp-tokens.service.js';

/** The agent-tool server's credentials (the server itself is a later part of the build). */
@Module({
  imports: [TypeOrmModule.forFeature([McpToken])],
  providers: [McpTokensService],
  exports: [McpTokensService],
})
export class McpModule {}
