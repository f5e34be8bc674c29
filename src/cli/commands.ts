import { financeCommands } from './finance.commands.js';
import type { CommandGroup } from './cli-program.js';
import { platformCommands } from './platform.commands.js';

/** Every command group of the admin CLI, registered here. */
export const COMMAND_GROUPS: CommandGroup[] = [platformCommands, financeCommands];
