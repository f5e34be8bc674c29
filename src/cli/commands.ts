import { FEATURE_COMMANDS } from '../app/features.js';
import type { CommandGroup } from '../platform/cli/command-group.js';
import { demoCommands } from './demo.commands.js';
import { eventCommands } from './events.commands.js';
import { platformCommands } from './platform.commands.js';

/** Every command group of the admin CLI: the platform's, then each feature's (its manifest), then the demo. */
export const COMMAND_GROUPS: CommandGroup[] = [platformCommands, eventCommands, ...FEATURE_COMMANDS, demoCommands];
