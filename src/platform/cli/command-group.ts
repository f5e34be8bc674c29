import type { INestApplicationContext } from '@nestjs/common';
import { isEmail } from 'class-validator';
import { type Command, InvalidArgumentError } from 'commander';

/** Lazily created application context, so `--help` and usage errors need no database. */
export type ContextProvider = () => Promise<INestApplicationContext>;

export interface CommandGroupDeps {
  context: ContextProvider;
  /** Each command calls this once with the one JSON object it prints. */
  output: (value: unknown) => void;
  /** A line of progress for the person waiting: stderr, never stdout, whose one JSON object is the contract. */
  progress: (line: string) => void;
  /**
   * Whether stderr is a terminal, where a person waits: a command reports progress there
   * unprompted, and elsewhere (a script, a test) only when asked, so success writes nothing there.
   */
  terminal: boolean;
}

/** Registers one group of admin commands: the platform's (src/cli/commands.ts) or a feature's (its manifest). */
export type CommandGroup = (program: Command, deps: CommandGroupDeps) => void;

/** Comma-separated list flag (operations.md): `a,b` → ['a', 'b']; empty string → []. */
export function list(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** A whole number JavaScript holds exactly: `99999999999999999999` is refused, not rounded. */
export function integer(value: string): number {
  const text = value.trim();
  if (!/^-?\d+$/.test(text)) throw new InvalidArgumentError(`not an integer: ${value}`);
  if (!Number.isSafeInteger(Number(text))) throw new InvalidArgumentError(`not a whole number between -2^53 and 2^53: ${value}`);
  return Number(text);
}

/** An id flag: UUID-shaped, so a typo is a clear message rather than a database error. */
export function uuid(value: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value.trim())) throw new InvalidArgumentError(`not an id: ${value}`);
  return value.trim().toLowerCase();
}

/** An e-mail address flag, checked as the validator library checks one. */
export function email(value: string): string {
  if (!isEmail(value.trim())) throw new InvalidArgumentError(`not an e-mail address: ${value}`);
  return value.trim();
}
