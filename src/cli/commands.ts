import type { CommandGroup } from './command-group.js';
import { demoCommands } from './demo.commands.js';
import { eventCommands } from './events.commands.js';
import { financeCommands } from './finance.commands.js';
import { mcpCommands } from './mcp.commands.js';
import { platformCommands } from './platform.commands.js';
import { webhookCommands } from './webhooks.commands.js';

/** Every command group of the admin CLI, registered here. */
export const COMMAND_GROUPS: CommandGroup[] = [platformCommands, financeCommands, eventCommands, mcpCommands, webhookCommands, demoCommands];
