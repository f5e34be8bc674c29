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
  terminal = false,
): Promise<CommandResult> {
  let printed: unknown;
  let count = 0;
  let help = '';
  let usageError = '';
  const program = new Command('cli')
    .description('Integrations API administration: prints one JSON object per command on stdout; errors go to stderr with exit code 1')
    .exitOverride()
    .showHelpAfterError(false)
    .showSuggestionAfterError(true)
    // The overview names each command with its flags, so one screen shows how to call any of them.
    .configureHelp({
      subcommandTerm: (command) => [command.name(), ...command.options.map((option) => (option.mandatory ? option.flags : `[${option.flags}]`))].join(' '),
    })
    .configureOutput({ writeOut: (text) => (help += text), writeErr: (text) => (usageError += text) });
  const deps: CommandGroupDeps = {
    context,
    output: (value) => {
      printed = value;
      count += 1;
    },
    progress,
    terminal,
  };
  for (const group of groups) group(program, deps);
  for (const command of program.commands) command.exitOverride().showSuggestionAfterError(true);
  // Commander would answer a bare invocation with its help on the (silenced) error stream.
  if (argv.length === 0) throw new Error('no command given; see --help');
  checkFlags(program, argv);
  // An unknown command is the answer whatever follows it: Commander answered `bogus --help` with
  // the overview and exit 0, as if the command existed.
  const known = argv[0].startsWith('-') || argv[0] === 'help' || program.commands.some((command) => command.name() === argv[0]);
  try {
    await program.parseAsync(known ? argv : argv.slice(0, 1), { from: 'user' });
  } catch (error) {
    // `help <unknown>` writes the overview to the error stream instead, as if it had failed.
    if (error instanceof CommanderError && (error.code === 'commander.helpDisplayed' || error.code === 'commander.help')) {
      if (help === '' && usageError !== '') throw new Error(`unknown command '${argv[1]}'; see --help`);
      return { help };
    }
    if (error instanceof CommanderError) throw new Error(oneLine(error.message));
    throw error;
  }
  if (count !== 1) throw new Error('the command printed nothing');
  return { json: printed };
}

/** Commander's message on one line, without its `error: ` prefix. */
function oneLine(message: string): string {
  return message.replace(/^error: /, '').trim().replace(/\s*\n\s*/g, ' ');
}

/**
 * What Commander would take silently: a flag given twice (it keeps the last), and a flag whose
 * value is missing, so that it takes the command's next flag as its value (`--name --slug s`
 * would name a company "--slug"). Any other value is taken as given, `--odd` included.
 */
function checkFlags(program: Command, argv: readonly string[]): void {
  const command = program.commands.find((candidate) => candidate.name() === argv[0]);
  if (!command) return;
  const seen = new Set<string>();
  for (let index = 1; index < argv.length && argv[index] !== '--'; index += 1) {
    const arg = argv[index];
    if (!arg.startsWith('--')) continue;
    const name = arg.split('=', 1)[0];
    if (seen.has(name) && name !== '--help') throw new Error(`flag ${name} is given twice; give it once`);
    seen.add(name);
    const option = command.options.find((candidate) => candidate.long === name);
    const next = argv[index + 1];
    if (option?.required && !arg.includes('=')) {
      const isFlag = next !== undefined && (next === '--help' || command.options.some((candidate) => candidate.long === next.split('=', 1)[0]));
      if (next === undefined || isFlag) throw new Error(`flag ${name} needs a value${next === undefined ? '' : ` (it is followed by ${next})`}`);
      index += 1;
    }
  }
}
