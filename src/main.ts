import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { createApiApp } from './app/create-api-app.js';
import { createMcpServer } from './app/create-mcp-server.js';
import { createWorkerContext } from './app/create-worker-context.js';
import { ConfigError, loadConfig } from './platform/config/app-config.js';
import { migrate } from './platform/database/database.js';
import { createLogger } from './platform/logging/logger.js';
import { serveMetrics } from './platform/metrics/metrics-server.js';
import { Metrics } from './platform/metrics/metrics.service.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config).child({ context: 'main' });
  const applied = await migrate(config.DATABASE_URL);
  if (applied.length > 0) logger.info(`applied migrations: ${applied.join(', ')}`);

  let metrics: Metrics | undefined;
  if (config.hasRole('api')) {
    const app = await createApiApp(config);
    metrics = app.get(Metrics);
    await app.listen(config.PORT);
    // The bound port, which differs from PORT when PORT is 0.
    const { port } = app.getHttpServer().address() as AddressInfo;
    logger.info({ port }, `REST API listening on port ${port}`);
  }
  if (config.hasRole('mcp')) {
    const { server } = await createMcpServer(config);
    await new Promise<void>((resolve) => server.listen(config.MCP_PORT, resolve));
    const { port } = server.address() as AddressInfo;
    logger.info({ port }, `agent-tool server listening on port ${port}`);
  }
  if (config.hasRole('worker')) {
    metrics = (await createWorkerContext(config)).get(Metrics);
    logger.info('worker started');
  }
  if (metrics && config.METRICS_PORT !== undefined) {
    const server = await serveMetrics(config.METRICS_PORT, metrics, (error) => logger.error({ err: error }, 'collecting metrics failed'));
    logger.info({ metrics_port: (server.address() as AddressInfo).port }, 'metrics served');
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
