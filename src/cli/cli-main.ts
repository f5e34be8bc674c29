import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '../platform/config/app-config.js';
import { migrate } from '../platform/database/database.js';
import { runCommand } from './cli-program.js';
import { CliModule } from './cli.module.js';
import { COMMAND_GROUPS } from './commands.js';

export interface CliOutput {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** stderr is a terminal (progress is reported unprompted). */
  terminal?: boolean;
}

const processOutput: CliOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  terminal: process.stderr.isTTY === true,
};

/**
 * The whole CLI run behind `node dist/cli.js`: one JSON object on stdout and exit code 0, or a
 * message on stderr and 1. Help, when asked for, goes to stdout with exit code 0. Separate from the entry file so tests run exactly this path.
 */
export async function cliMain(argv: string[], io: CliOutput = processOutput): Promise<number> {
  let context: INestApplicationContext | undefined;
  try {
    const result = await runCommand(argv, async () => {
      const config = loadConfig();
      await migrate(config.DATABASE_URL);
      // abortOnError off: a failing start is thrown, and reported on stderr below, not a silent exit 1.
      context = await NestFactory.createApplicationContext(CliModule.register(config), { logger: false, abortOnError: false });
      return context;
    }, COMMAND_GROUPS, (line) => io.stderr(`${line}\n`), io.terminal ?? false);
    io.stdout('help' in result ? result.help : `${JSON.stringify(result.json)}\n`);
    return 0;
  } catch (error) {
    io.stderr(`${printable(messageOf(error))}\n`);
    return 1;
  } finally {
    await context?.close();
  }
}

/** PostgreSQL's detail of an insert naming a company no row has (a foreign key on `tenant_id`). */
const UNKNOWN_TENANT = /^Key \(tenant_id\)=\((.*)\) is not present in table "tenants"\.$/;

/**
 * The error's message; a company id that names no company, met by a command's insert rather
 * than checked first, said as the commands that check it say it, not as PostgreSQL's error.
 */
export function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, detail } = error as { code?: unknown; detail?: unknown };
  const tenant = code === '23503' && typeof detail === 'string' ? UNKNOWN_TENANT.exec(detail) : null;
  return tenant ? `Tenant ${tenant[1]} not found` : error.message;
}

/**
 * A message a terminal shows as it is: control characters (a NUL or an escape sequence echoed
 * from the input, C1 controls) written as `\uXXXX`. Line breaks and tabs stay: some messages
 * have lines of their own (an invalid configuration names each variable on one).
 */
function printable(message: string): string {
  return message.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
