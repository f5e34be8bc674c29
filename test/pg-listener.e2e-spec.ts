import pg from 'pg';
import { PgListener } from '../src/platform/database/pg-listener.js';
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

  it('hears notifications, and listens again 1 s after its connection is terminated', async () => {
    const heard: string[] = [];
    const lost: string[] = [];
    let listening = 0;
    let pid: number | undefined;
    const listener = new PgListener(
      process.env.DATABASE_URL!,
      channel,
      { notification: (payload) => heard.push(payload), listening: () => (listening += 1), lost: (reason) => lost.push(reason) },
      async (connection) => (pid = (await connection.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid),
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
    } finally {
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
