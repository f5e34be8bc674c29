import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { Metrics } from './metrics.service.js';

/**
 * The metrics on their own port (`METRICS_PORT`), started once per process by run-roles.ts for
 * whatever roles it runs, so the public API port never shows them: `GET /metrics`, anything
 * else 404.
 */
export async function serveMetrics(port: number, metrics: Pick<Metrics, 'registry'>, onError: (error: unknown) => void): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' }).end(text),
      (error: unknown) => {
        onError(error);
        response.writeHead(500, { 'content-type': 'text/plain' }).end('collecting metrics failed\n');
      },
    );
  });
  server.listen(port);
  await once(server, 'listening');
  return server;
}
