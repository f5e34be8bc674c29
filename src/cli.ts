import 'reflect-metadata';
import { cliMain } from './cli/cli-main.js';

// A reader that closed stdout early (`| head`, `| true`) is no failure of the command, whose
// change is made by then: its exit code stands, and no stack trace follows.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

/** `node dist/cli.js <command> [--flag value ...]`: one JSON object on stdout, exit 0; else stderr, exit 1. */
process.exitCode = await cliMain(process.argv.slice(2));
