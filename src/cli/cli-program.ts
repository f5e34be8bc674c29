import { Command, CommanderError } from 'commander';
import type { CommandGroup, CommandGroupDeps, ContextProvider } from '../platform/cli/command-group.js';

/**
 * Runs one CLI command of `groups` (passed in, so that this file stays the CLI's machinery and knows no command) and returns the JSON object it
 * printed. Usage errors and failures throw; the entry point turns them into a stderr message
 * and a non-zero exit.
 */
export async function runCommand(argv: string[], context: ContextProvider, groups: readonly CommandGroup[]): Promise<unknown> {
  let printed: unknown;
  let count = 0;
  const program = new Command('cli')
    .description('Integrations API administration: prints one JSON object per command')
    .exitOverride()
    .showHelpAfterError(false)
    .configureOutput({ writeOut: (text) => process.stderr.write(text), writeErr: () => undefined });
  const deps: CommandGroupDeps = {
    context,
    output: (value) => {
      printed = value;
      count += 1;
    },
  };
  for (const group of groups) group(program, deps);
  // Commander would answer a bare invocation with its help on the (silenced) error stream.
  if (argv.length === 0) throw new Error('no command given; see --help');
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) throw new Error(error.message.replace(/^error: /, ''));
    throw error;
  }
  if (count !== 1) throw new Error('the command printed nothing');
  return printed;
}
