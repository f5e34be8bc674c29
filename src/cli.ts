import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { runCommand } from './cli/cli-program.js';
import { CliModule } from './cli/cli.module.js';
import { loadConfig } from './platform/config/app-config.js';
import { migrate } from './platform/database/database.js';

/** `node dist/cli.js <command> [--flag value ...]`: one JSON object on stdout, exit 0; else stderr, exit 1. */
async function main(): Promise<number> {
  let context: INestApplicationContext | undefined;
  try {
    const printed = await runCommand(process.argv.slice(2), async () => {
      const config = loadConfig();
      await migrate(config.DATABASE_URL);
      context = await NestFactory.createApplicationContext(CliModule.register(config), { logger: false });
      return context;
    });
    process.stdout.write(`${JSON.stringify(printed)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await context?.close();
  }
}

process.exitCode = await main();
