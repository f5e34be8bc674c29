import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP port that forwards to `target` while up and, while down, cuts every connection (the
 * ones it carried and each new one at once): a dependency that goes away and comes back for
 * the process under test, while the test itself keeps its own connections.
 */
export interface TcpProxy {
  port: number;
  up: () => void;
  down: () => void;
  /** Keeps every connection open but forwards nothing more, either way: a server that stops answering (a partition, a frozen host). */
  stall: () => void;
  /** Forwards what the clients send but holds the server's answers back until `release`: a server that runs every command and answers late. */
  holdAnswers: () => void;
  /** Passes on the answers held back, and those that follow. */
  release: () => void;
  /** When the proxy first cut a new connection since it last went down. */
  firstRefusalAt: () => number | undefined;
  /** How many new connections it has cut in all. */
  refusals: () => number;
  close: () => Promise<void>;
}

export async function tcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  let forwarding = false;
  let firstRefusalAt: number | undefined;
  let refusals = 0;
  const server = createServer((client) => {
    client.on('error', () => undefined);
    if (!forwarding) {
      firstRefusalAt ??= Date.now();
      refusals += 1;
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(socket);
      });
    }
    client.pipe(upstream).pipe(client);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as { port: number }).port,
    up: () => {
      forwarding = true;
    },
    down: () => {
      forwarding = false;
      firstRefusalAt = undefined;
      for (const socket of sockets) socket.destroy();
    },
    stall: () => {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream).pause();
        upstream.unpipe(client).pause();
      }
    },
    holdAnswers: () => {
      for (const [client, upstream] of pairs) upstream.unpipe(client).pause();
    },
    release: () => {
      for (const [client, upstream] of pairs) {
        upstream.pipe(client);
        upstream.resume();
      }
    },
    firstRefusalAt: () => firstRefusalAt,
    refusals: () => refusals,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
