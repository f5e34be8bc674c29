import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { createApiApp } from './app/create-api-app.js';
import { createWorkerContext } from './app/create-worker-context.js';
import { ConfigError, loadConfig } from './platform/config/app-config.js';
import { migrate } from './platform/database/database.js';
import { createLogger } from './platform/logging/logger.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config).child({ context: 'main' });
  const applied = await migrate(config.DATABASE_URL);
  if (applied.length > 0) logger.info(`applied migrations: ${applied.join(', ')}`);

  if (config.hasRole('api')) {
    const app = await createApiApp(config);
    await app.listen(config.PORT);
    // The bound port, which differs from PORT when PORT is 0.
    const { port } = app.getHttpServer().address() as AddressInfo;
    logger.info({ port }, `REST API listening on port ${port}`);
  }
  if (config.hasRole('mcp')) logger.warn('the agent-tool server (mcp role) is not part of this build yet');
  if (config.hasRole('worker')) {
    await createWorkerContext(config);
    logger.info('worker started');
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(1);
});
