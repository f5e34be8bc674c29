import 'reflect-metadata';
import { cliMain } from './cli/cli-main.js';

// A reader that closed stdout early (`| head`, `| true`) is no failure of the command, whose
// change is made by then: its exit code stands, and no stack trace follows.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

/** `node dist/cli.js <command> [--flag value ...]`: one JSON object on stdout, exit 0; else stderr, exit 1. */
const code = await cliMain(process.argv.slice(2));
// Exits once the answer is flushed (a write's callback comes after those before it): an
// application that failed half-started (a full server refusing its second connection) left
// connections of its pool open that nothing can close, and the command hung.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
