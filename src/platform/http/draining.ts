import type { Server } from 'node:http';

/** How long a stopping process waits for requests in flight before it closes their connections. */
const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Counts a server's requests in flight, so that a stopping process can say what it drained.
 * `drain` stops accepting, waits for the requests in flight (closing idle keep-alive connections
 * at once, and any left after DRAIN_TIMEOUT_MS), and answers how many there were when it began.
 */
export function trackRequests(server: Server): { inFlight: () => number; drain: () => Promise<number> } {
  let inFlight = 0;
  server.on('request', (_request, response) => {
    inFlight += 1;
    response.once('close', () => (inFlight -= 1));
  });
  return {
    inFlight: () => inFlight,
    drain: async () => {
      const atStart = inFlight;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
      await closed;
      clearTimeout(timer);
      return atStart;
    },
  };
}
