import type { Server } from 'node:http';
import { whenClosed } from '../logging/request-log.js';

/**
 * Counts a server's requests in flight, so that a stopping process can say what it drained.
 * `drain` stops accepting, waits for the requests in flight (closing idle keep-alive connections
 * at once, and any left after `drainMs`), and answers how many there were when it began.
 */
export function trackRequests(server: Server, drainMs: number): { inFlight: () => number; drain: () => Promise<number> } {
  let inFlight = 0;
  server.on('request', (_request, response) => {
    inFlight += 1;
    whenClosed(response, () => (inFlight -= 1));
  });
  return {
    inFlight: () => inFlight,
    drain: async () => {
      const atStart = inFlight;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), drainMs);
      await closed;
      clearTimeout(timer);
      return atStart;
    },
  };
}
