import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
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
  // Each role's module graph is imported only when the role runs: an API-only process then never
  // loads the agent-tool server's SDK or the worker's handlers, which would only hold memory.
  if (config.hasRole('api')) {
    const { createApiApp } = await import('./app/create-api-app.js');
    const app = await createApiApp(config);
    metrics = app.get(Metrics);
    await app.listen(config.PORT);
    // The bound port, which differs from PORT when PORT is 0.
    const { port } = app.getHttpServer().address() as AddressInfo;
    logger.info({ port }, `REST API listening on port ${port}`);
  }
  if (config.hasRole('mcp')) {
    const { createMcpServer } = await import('./app/create-mcp-server.js');
    const { server } = await createMcpServer(config);
    await new Promise<void>((resolve) => server.listen(config.MCP_PORT, resolve));
    const { port } = server.address() as AddressInfo;
    logger.info({ port }, `agent-tool server listening on port ${port}`);
  }
  if (config.hasRole('worker')) {
    const { createWorkerContext } = await import('./app/create-worker-context.js');
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
