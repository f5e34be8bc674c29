import type { INestApplicationContext, Type } from '@nestjs/common';
import { createWorkerContext } from '../../src/app/create-worker-context.js';
import { testConfig } from './config.js';

/** A real worker role on the test database and Redis; `close()` stops its workers. */
export async function startWorker(options: { modules?: Type[]; env?: Record<string, string> } = {}): Promise<INestApplicationContext> {
  return createWorkerContext(testConfig(options.env), options.modules);
}
