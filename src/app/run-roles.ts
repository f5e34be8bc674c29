import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { ConfigError, loadConfig } from '../platform/config/app-config.js';
import { MISSING_SECRETS_KEY_WARNING } from '../platform/crypto/secrets-cipher.js';
import { migrate, unansweredQueryMs } from '../platform/database/database.js';
import { trackRequests } from '../platform/http/draining.js';
import { createLogger } from '../platform/logging/logger.js';
import { serveMetrics } from '../platform/metrics/metrics-server.js';
import { processMetrics } from '../platform/metrics/metrics.service.js';
import { settlesWithin } from '../platform/timing/settles-within.js';

/** What one running role does when the process stops: drain and close, answering what it drained. */
type Stop = () => Promise<Record<string, unknown>>;

/** How much longer than an attempt's timeout the worker may take to stop: its jobs and connections. */
const WORKER_STOP_MARGIN_MS = 10_000;

/**
 * How long a server role may take to close its application once its requests have drained:
 * with the database not answering, closing its pool would wait for it for ever.
 */
const CLOSE_WITHIN_MS = 10_000;

/** How much longer than a query's bound the servers wait for their requests in flight before they close the connections. */
const DRAIN_MARGIN_MS = 1_000;

/** A port that cannot be had fails the start naming its variable: Node's message names the port alone. */
function portRefused(variable: string, port: number): (error: unknown) => never {
  return (error) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new Error(`${variable}=${port}: the port is already in use`, { cause: error });
    if (code === 'EACCES') throw new Error(`${variable}=${port}: no permission to listen on the port`, { cause: error });
    throw error;
  };
}

/** Closes a role's application within `withinMs`; answers what the role's stopped line adds. */
async function closeWithin(close: Promise<unknown>, role: string, logger: Logger, withinMs = CLOSE_WITHIN_MS): Promise<Record<string, unknown>> {
  if (await settlesWithin(close, withinMs)) return {};
  logger.warn({ role, within_ms: withinMs }, `the ${role} did not close in time (database or Redis not answering?); exiting`);
  return { timed_out: true };
}

async function startRoles(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config).child({ context: 'main' });
  if (config.SECRETS_KEY === undefined) logger.warn(MISSING_SECRETS_KEY_WARNING);
  const relaxed = config.webhookSafetyRelaxed;
  if (relaxed.length > 0) logger.warn(`Webhook URL safety is relaxed for development and tests: ${relaxed.join('; ')}. Unset them in any real deployment.`);
  if (config.publicBaseUrlWarning) logger.warn(config.publicBaseUrlWarning);
  const stops: { role: string; stop: Stop }[] = [];
  // Installed before anything starts: a signal while a role is still starting (the worker waits
  // for an unreachable Redis for as long as it takes, with the API already serving) stops the
  // roles started so far, gracefully, instead of killing the process.
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    stopping = true;
    const started = Date.now();
    logger.info({ signal }, 'shutting down');
    const stopRole = async ({ role, stop }: (typeof stops)[number]) => logger.info({ role, ...(await stop()) }, `${role} stopped`);
    // One handler for the whole process (not one per role, whose first to finish would end the
    // others' drain): every server stops accepting at once and finishes its requests; the worker,
    // which serves none, lets its attempts and jobs finish after them; each role logs what it drained.
    await Promise.all(stops.filter(({ role }) => role !== 'worker').map(stopRole));
    await Promise.all(stops.filter(({ role }) => role === 'worker').map(stopRole));
    logger.info({ signal, duration_ms: Date.now() - started }, 'shut down');
    process.exit(0);
  };
  const signals = ['SIGTERM', 'SIGINT'] as const;
  for (const signal of signals) {
    process.on(signal, () => {
      // A second signal, of either kind, ends the process at once by the signal's default action
      // (before, a SIGINT after a SIGTERM started a second drain beside the first).
      if (stopping) {
        for (const other of signals) process.removeAllListeners(other);
        process.kill(process.pid, signal);
        return;
      }
      void shutdown(signal).catch((error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
    });
  }

  const applied = await migrate(config.DATABASE_URL);
  if (applied.length > 0) logger.info(`applied migrations: ${applied.join(', ')}`);

  // Requests in flight get the time a database that does not answer takes to be answered 503.
  const drainMs = unansweredQueryMs(config) + DRAIN_MARGIN_MS;
  // Before the roles, from the process's one registry (each role adds its metrics to it): a role
  // still starting, as a worker waiting for Redis, must not leave the process unscraped.
  if (config.METRICS_PORT !== undefined && !stopping) {
    const server = await serveMetrics(config.METRICS_PORT, processMetrics, (error) => logger.error({ err: error }, 'collecting metrics failed')).catch(
      portRefused('METRICS_PORT', config.METRICS_PORT),
    );
    const scrapes = trackRequests(server, drainMs);
    logger.info({ metrics_port: (server.address() as AddressInfo).port }, 'metrics served');
    stops.push({ role: 'metrics', stop: async () => ({ in_flight_requests: await scrapes.drain() }) });
  }
  // Each role's module graph is imported only when the role runs: an API-only process then never
  // loads the agent-tool server's SDK or the worker's handlers, which would only hold memory.
  if (config.hasRole('api') && !stopping) {
    const { createApiApp } = await import('./create-api-app.js');
    const app = await createApiApp(config);
    // A signal while it was being made: it never listens, and no later role starts.
    if (stopping) {
      await closeWithin(app.close(), 'api', logger);
      return;
    }
    const requests = trackRequests(app.getHttpServer(), drainMs);
    await app.listen(config.PORT).catch(portRefused('PORT', config.PORT));
    // The bound port, which differs from PORT when PORT is 0.
    const { port } = app.getHttpServer().address() as AddressInfo;
    logger.info({ port }, `REST API listening on port ${port}`);
    stops.push({
      role: 'api',
      stop: async () => {
        const inFlight = await requests.drain();
        return { in_flight_requests: inFlight, ...(await closeWithin(app.close(), 'api', logger)) };
      },
    });
  }
  if (config.hasRole('mcp') && !stopping) {
    const { createMcpServer } = await import('./create-mcp-server.js');
    const mcp = await createMcpServer(config);
    if (stopping) {
      await closeWithin(mcp.context.close(), 'mcp', logger);
      return;
    }
    const requests = trackRequests(mcp.server, drainMs);
    // A port in use fails the start with its message, as the REST API's does (it threw from an 'error' event no one heard).
    await new Promise<void>((resolve, reject) => {
      mcp.server.once('error', reject);
      mcp.server.listen(config.MCP_PORT, () => {
        mcp.server.off('error', reject);
        resolve();
      });
    }).catch(portRefused('MCP_PORT', config.MCP_PORT));
    const { port } = mcp.server.address() as AddressInfo;
    logger.info({ port }, `agent-tool server listening on port ${port}`);
    stops.push({
      role: 'mcp',
      stop: async () => {
        const inFlight = await requests.drain();
        return { in_flight_requests: inFlight, ...(await closeWithin(mcp.context.close(), 'mcp', logger)) };
      },
    });
  }
  if (config.hasRole('worker') && !stopping) {
    const { createWorkerContext } = await import('./create-worker-context.js');
    const worker = await createWorkerContext(config);
    if (stopping) {
      await closeWithin(worker.close(), 'worker', logger);
      logger.info('worker closed before it started');
      return;
    }
    logger.info('worker started');
    // The delivery dispatcher logs the attempts it let finish; the queue workers finish their jobs.
    // Bounded: with Redis unreachable, BullMQ's close waits for it for ever. A job cut short is
    // stalled, and run again; the attempts have drained by then (each within WEBHOOK_TIMEOUT_MS).
    stops.push({ role: 'worker', stop: () => closeWithin(worker.close(), 'worker', logger, config.WEBHOOK_TIMEOUT_MS + WORKER_STOP_MARGIN_MS) });
  }
}

/** `node dist/main.js`: starts the roles of APP_ROLES; a process that cannot start says why on stderr and exits 1. */
export function runRoles(): void {
  startRoles().catch((error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
    } else {
      process.stderr.write(`start failed: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    process.exit(1);
  });
}
