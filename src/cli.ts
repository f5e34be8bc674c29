import 'reflect-metadata';
import { cliMain } from './cli/cli-main.js';

/** `node dist/cli.js <command> [--flag value ...]`: one JSON object on stdout, exit 0; else stderr, exit 1. */
process.exitCode = await cliMain(process.argv.slice(2));
