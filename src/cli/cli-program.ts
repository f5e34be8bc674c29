import { Command, CommanderError, InvalidArgumentError } from 'commander';
import type { CommandGroup, CommandGroupDeps, ContextProvider } from './command-group.js';

export type { CommandGroup, CommandGroupDeps, ContextProvider } from './command-group.js';

/** Comma-separated list flag (operations.md): `a,b` → ['a', 'b']; empty string → []. */
export function list(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

export function integer(value: string): number {
  if (!/^-?\d+$/.test(value.trim())) throw new Error(`not an integer: ${value}`);
  return Number(value);
}

/** An id flag: UUID-shaped, so a typo is a clear message rather than a database error. */
export function uuid(value: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value.trim())) throw new InvalidArgumentError(`not an id: ${value}`);
  return value.trim().toLowerCase();
}

/**
 * Runs one CLI command of `groups` (the list in commands.ts, passed in so that the command files,
 * which import this file's flag parsers, are not imported back) and returns the JSON object it
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
