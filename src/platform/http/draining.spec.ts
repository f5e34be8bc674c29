import { Agent, createServer, request, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { trackRequests } from './draining.js';

describe('trackRequests', () => {
  it('answers the requests in flight with Connection: close once draining, so no kept-alive connection brings another', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const server = createServer((incoming, response) => {
      if (incoming.url === '/slow') void released.then(() => response.end('slow'));
      else response.end('quick');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const requests = trackRequests(server, 10_000);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<IncomingMessage>((resolve, reject) => request({ host: '127.0.0.1', port, path, agent }, resolve).on('error', reject).end());
    try {
      // A kept-alive connection, busy at the drain's start.
      const quick = await get('/quick');
      expect(quick.headers.connection).toBe('keep-alive');
      quick.resume();
      await once(quick, 'end');
      const slow = get('/slow');
      while (requests.inFlight() === 0) await new Promise((resolve) => setImmediate(resolve));
      const drained = requests.drain();
      release();
      const answer = await slow;
      // Before: keep-alive, and the client's next request on it was cut when the drain ran out.
      expect(answer.headers.connection).toBe('close');
      answer.resume();
      expect(await drained).toBe(1);
    } finally {
      agent.destroy();
      server.close();
    }
  });
});
