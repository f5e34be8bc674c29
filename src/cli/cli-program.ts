import { Command, CommanderError } from 'commander';
import type { CommandGroup, CommandGroupDeps, ContextProvider } from '../platform/cli/command-group.js';

/** What a run printed: the command's one JSON object, or the help a user asked for. */
export type CommandResult = { json: unknown } | { help: string };

/**
 * Runs one CLI command of `groups` (passed in, so that this file stays the CLI's machinery and
 * knows no command) and returns the JSON object it printed, or the help text for `--help`,
 * `help` and `<command> --help`. Usage errors (an unknown command or flag, with the closest one
 * suggested) and failures throw; the entry point turns them into a stderr message and a non-zero
 * exit.
 */
export async function runCommand(
  argv: string[],
  context: ContextProvider,
  groups: readonly CommandGroup[],
  progress: (line: string) => void = () => undefined,
): Promise<CommandResult> {
  let printed: unknown;
  let count = 0;
  let help = '';
  const program = new Command('cli')
    .description('Integrations API administration: prints one JSON object per command on stdout; errors go to stderr with exit code 1')
    .exitOverride()
    .showHelpAfterError(false)
    .showSuggestionAfterError(true)
    // The overview names each command with its flags, so one screen shows how to call any of them.
    .configureHelp({
      subcommandTerm: (command) => [command.name(), ...command.options.map((option) => (option.mandatory ? option.flags : `[${option.flags}]`))].join(' '),
    })
    .configureOutput({ writeOut: (text) => (help += text), writeErr: () => undefined });
  const deps: CommandGroupDeps = {
    context,
    output: (value) => {
      printed = value;
      count += 1;
    },
    progress,
  };
  for (const group of groups) group(program, deps);
  for (const command of program.commands) command.exitOverride().showSuggestionAfterError(true);
  // Commander would answer a bare invocation with its help on the (silenced) error stream.
  if (argv.length === 0) throw new Error('no command given; see --help');
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError && (error.code === 'commander.helpDisplayed' || error.code === 'commander.help')) return { help };
    if (error instanceof CommanderError) throw new Error(error.message.replace(/^error: /, ''));
    throw error;
  }
  if (count !== 1) throw new Error('the command printed nothing');
  return { json: printed };
}
