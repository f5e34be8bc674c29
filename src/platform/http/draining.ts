import type { Server, ServerResponse } from 'node:http';
import { MAX_TIMER_MS } from '../config/app-config.js';
import { whenClosed } from '../logging/request-log.js';
import { SlotSet } from '../runtime/slot-set.js';

/**
 * Counts a server's requests in flight, so that a stopping process can say what it drained.
 * `drain` stops accepting, waits for the requests in flight (closing idle keep-alive connections
 * at once, and any left after `drainMs`), and answers how many there were when it began. From
 * then on every answer whose head is still to be sent closes its connection (`Connection:
 * close`): kept alive, the connection would bring its client's next request, to be cut at
 * `drainMs`, or stay idle and hold the drain until its keep-alive timeout.
 */
export function trackRequests(server: Server, drainMs: number): { inFlight: () => number; drain: () => Promise<number> } {
  // Not a Set: every request joins and leaves it (SlotSet says why that matters).
  const inFlight = new SlotSet<ServerResponse>();
  let draining = false;
  server.on('request', (_request, response) => {
    const leave = inFlight.add(response);
    if (draining) response.shouldKeepAlive = false;
    whenClosed(response, leave);
  });
  return {
    inFlight: () => inFlight.size,
    drain: async () => {
      const atStart = inFlight.size;
      draining = true;
      for (const response of inFlight) if (!response.headersSent) response.shouldKeepAlive = false;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Within a timer's longest wait: past it Node would fire at once and cut the drain.
      const timer = setTimeout(() => server.closeAllConnections(), Math.min(drainMs, MAX_TIMER_MS));
      await closed;
      clearTimeout(timer);
      return atStart;
    },
  };
}
