import type { Command } from 'commander';
import { McpTokensService } from './mcp-tokens.service.js';
import { grantableToolNames, TOOL_SOURCES, type ToolSources } from './tool-names.js';
import { type CommandGroupDeps, list, uuid } from '../platform/cli/command-group.js';

/** Agent-tool server tokens, which support issues on request (operations.md). */
export function mcpCommands(program: Command, { context, output }: CommandGroupDeps): void {
  program
    .command('mcp-token:create')
    .description('issue an oht_ token for a person of a company; prints {id, token}, the token only this once')
    .requiredOption('--tenant <id>', 'company id', uuid)
    .requiredOption('--user <id>', 'the person the token acts for', uuid)
    .requiredOption('--tools <list>', 'comma-separated tool names, or * for every tool', list)
    .action(async (options: { tenant: string; user: string; tools: string[] }) => {
      const app = await context();
      const grantable = grantableToolNames(app.get<ToolSources>(TOOL_SOURCES));
      output(await app.get(McpTokensService).create({ tenantId: options.tenant, userId: options.user, tools: options.tools }, grantable));
    });

  program
    .command('mcp-token:revoke')
    .description('revoke an oht_ token at once; prints {id, revoked_at}')
    .requiredOption('--token <id>', 'token id (as printed by mcp-token:create)', uuid)
    .action(async (options: { token: string }) => {
      const tokens = (await context()).get(McpTokensService);
      output(await tokens.revoke(options.token));
    });
}
