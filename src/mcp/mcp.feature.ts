import type { FeatureManifest } from '../platform/features/feature-manifest.js';
import { mcpCommands } from './mcp.commands.js';
import { McpModule } from './mcp.module.js';

/** The agent-tool server's tokens; the server itself is the mcp role (src/app/create-mcp-server.ts), over every feature's resources. */
export const mcpFeature: FeatureManifest = {
  name: 'mcp',
  modules: [McpModule],
  commands: mcpCommands,
};
