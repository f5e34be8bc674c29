import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createLogger } from '../../src/platform/logging/logger.js';

/** A logger at `level` whose JSON lines are collected, parsed, in `lines`. */
export function captureLogs(level: string): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')));
      done();
    },
  });
  return { logger: createLogger({ LOG_LEVEL: level }, stream), lines };
}
