import type { INestApplicationContext } from '@nestjs/common';
import type { Command } from 'commander';

/** Lazily created application context, so `--help` and usage errors need no database. */
export type ContextProvider = () => Promise<INestApplicationContext>;

export interface CommandGroupDeps {
  context: ContextProvider;
  /** Each command calls this once with the one JSON object it prints. */
  output: (value: unknown) => void;
}

/** Registers one group of admin commands (listed in commands.ts). */
export type CommandGroup = (program: Command, deps: CommandGroupDeps) => void;
