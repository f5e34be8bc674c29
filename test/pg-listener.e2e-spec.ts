import pg from 'pg';
import { PgListener } from '../src/platform/database/pg-listener.js';
import { tcpProxy } from './support/tcp-proxy.js';
import { waitFor } from './support/wait-for.js';

/** The dedicated LISTEN connection of the key cache and the event relay: it comes back after it is cut. */
describe('PgListener (e2e)', () => {
  const channel = 'pg_listener_test';
  let admin: pg.Client;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
  });
  afterAll(() => admin.end());

  it('hears notifications, and listens again 1 s after its connection is terminated, warning of its losses at most every 30 s', async () => {
    const heard: string[] = [];
    const lost: string[] = [];
    const warned: string[] = [];
    let listening = 0;
    let pid: number | undefined;
    const listener = new PgListener(
      process.env.DATABASE_URL!,
      channel,
      {
        notification: (payload) => heard.push(payload),
        listening: () => (listening += 1),
        lost: (reason) => lost.push(reason),
        warn: (reason) => warned.push(reason),
      },
      async (query) => (pid = (await query('SELECT pg_backend_pid() AS pid')).rows[0].pid),
    );
    try {
      await listener.start();
      expect(listening).toBe(1);
      await admin.query('SELECT pg_notify($1, $2)', [channel, 'first']);
      await waitFor(async () => heard.includes('first'), 5_000, 'the first notification');

      const before = pid;
      await admin.query('SELECT pg_terminate_backend($1)', [before]);
      await waitFor(async () => listening === 2, 10_000, 'listening again');
      expect(lost).toHaveLength(1);
      expect(pid).not.toBe(before);
      await admin.query('SELECT pg_notify($1, $2)', [channel, 'second']);
      await waitFor(async () => heard.includes('second'), 5_000, 'a notification after the reconnect');

      // Before: a line per loss, every second through an outage.
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await waitFor(async () => listening === 3, 10_000, 'listening again after a second loss');
      expect(lost).toHaveLength(2);
      expect(warned).toEqual([lost[0]]);
    } finally {
      await listener.stop();
    }
  });

  it('listens again when its connection stops answering without being cut (the network dropped it): it heard nothing for ever', async () => {
    const database = new URL(process.env.DATABASE_URL!);
    const proxy = await tcpProxy({ host: database.hostname, port: Number(database.port || 5432) });
    proxy.up();
    const heard: string[] = [];
    const lost: string[] = [];
    let listening = 0;
    const listener = new PgListener(
      `${database.protocol}//${database.username}${database.password ? `:${database.password}` : ''}@127.0.0.1:${proxy.port}${database.pathname}${database.search}`,
      channel,
      { notification: (payload) => heard.push(payload), listening: () => (listening += 1), lost: (reason) => lost.push(reason) },
      undefined,
      { intervalMs: 200, timeoutMs: 300 },
    );
    try {
      await listener.start();
      // Black-holed: the connection stays open and carries nothing more; new ones go through.
      proxy.stall();
      await waitFor(async () => listening === 2, 10_000, 'listening on a new connection');
      expect(lost).toEqual(['no answer on the listening connection within 300 ms']);
      await admin.query('SELECT pg_notify($1, $2)', [channel, 'after']);
      await waitFor(async () => heard.includes('after'), 5_000, 'a notification on the new connection');
    } finally {
      await listener.stop();
      await proxy.close();
    }
  });

  it('closes a connection still being made when it is stopped, and never says it listens: stopped during a reconnect, it kept the process alive', async () => {
    let listening = 0;
    let pid = 0;
    let proceed!: () => void;
    const stopCame = new Promise<void>((resolve) => (proceed = resolve));
    const listener = new PgListener(process.env.DATABASE_URL!, channel, { notification: () => undefined, listening: () => (listening += 1), lost: () => undefined }, async (query) => {
      pid = (await query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      await stopCame;
    });
    const starting = listener.start();
    await waitFor(async () => pid !== 0, 5_000, 'the connection being prepared');
    const stopping = listener.stop();
    proceed();
    // The stop waits for the start in progress, which closes its connection.
    await stopping;
    await starting;
    const alive = async () => (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount !== 0;
    await waitFor(async () => !(await alive()), 5_000, 'the connection closed');
    expect(listening).toBe(0);
  });

  it('answers a burst of notifications one statement at a time on its connection: pg deprecates queueing them (pg 9 refuses)', async () => {
    // pg's own condition for its deprecation warning: a query asked while others wait in its queue.
    const query = pg.Client.prototype.query;
    let queuedBehindOthers = 0;
    pg.Client.prototype.query = function (this: pg.Client & { _queryQueue: unknown[] }, ...args: unknown[]) {
      if (this._queryQueue.length > 0) queuedBehindOthers += 1;
      return (query as (...args: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    const answered: string[] = [];
    const listener = new PgListener(process.env.DATABASE_URL!, channel, {
      notification: (payload, answer) => void answer('SELECT $1::text AS payload, pg_sleep(0.01)', [payload]).then(({ rows }) => answered.push(rows[0].payload)),
      listening: () => undefined,
    });
    try {
      await listener.start();
      // One transaction: its notifications arrive together, at its commit.
      await admin.query(`BEGIN; SELECT pg_notify('${channel}', 'a'), pg_notify('${channel}', 'b'), pg_notify('${channel}', 'c'); COMMIT`);
      await waitFor(async () => answered.length === 3, 5_000, 'three answers');
      expect(answered).toEqual(['a', 'b', 'c']);
      expect(queuedBehindOthers).toBe(0);
    } finally {
      pg.Client.prototype.query = query;
      await listener.stop();
    }
  });

  it('tells nothing of its own stop', async () => {
    const lost: string[] = [];
    const listener = new PgListener(process.env.DATABASE_URL!, channel, { notification: () => undefined, listening: () => undefined, lost: (reason) => lost.push(reason) });
    await listener.start();
    await listener.stop();
    expect(lost).toEqual([]);
  });
});
