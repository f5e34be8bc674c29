import pg from 'pg';
import { throttledWarning } from '../timing/throttled-warning.js';
import { settlesWithin } from '../timing/settles-within.js';

const RELISTEN_DELAY_MS = 1_000;

/**
 * How often the listening connection is asked a `SELECT 1`, and how long its answer may take
 * before the connection counts as lost. A connection the network drops without a reset (a
 * firewall's or NAT's state gone, a host vanished) otherwise stays open for ever, hearing
 * nothing: revoked keys stayed cached, and events waited for the sweep (found by a crash review).
 */
export interface Liveness {
  intervalMs: number;
  timeoutMs: number;
}
const LIVENESS: Liveness = { intervalMs: 10_000, timeoutMs: 5_000 };

/** A statement on the listening connection, run after those asked before it. */
export type ListenerQuery = (sql: string, values?: unknown[]) => Promise<pg.QueryResult>;

export interface PgListenerHandlers {
  /** A notification on the channel; `answer` runs a statement on the listening connection. */
  notification(payload: string, answer: ListenerQuery): void;
  /** LISTEN is in place (again): whatever was notified while it was not must be caught up now. */
  listening(): void;
  /** The connection failed or could not be made; a new one is tried 1 s later, until `stop`. */
  lost?(reason: string): void;
  /**
   * Writes the loss's warning, at most once every 30 s (throttledWarning): through an outage
   * the listener tries again every second, and wrote a line each time, 3,600 an hour.
   */
  warn?(reason: string): void;
}

/**
 * A dedicated connection LISTENing on one channel (a pooled connection cannot: it goes back to
 * the pool), made again 1 s after it fails or ends. `prepare` runs on it once LISTEN is in
 * place and before `listening`. Every statement on it (LISTEN, `prepare`'s, the answers to
 * notifications, the liveness check) runs after the one before has been answered: a burst of
 * notifications answered at once queued statements inside pg, which pg deprecates (it warned in
 * the test logs) and pg 9 refuses.
 */
export class PgListener {
  private client?: pg.Client;
  private retry?: NodeJS.Timeout;
  private starting?: Promise<void>;
  private pending?: pg.Client;
  private stopped = false;
  private readonly warnOfLoss: (reason: string) => void;

  constructor(
    private readonly databaseUrl: string,
    private readonly channel: string,
    private readonly handlers: PgListenerHandlers,
    private readonly prepare?: (query: ListenerQuery) => Promise<unknown>,
    private readonly liveness: Liveness = LIVENESS,
  ) {
    this.warnOfLoss = throttledWarning((reason) => handlers.warn?.(reason));
  }

  /** Starts listening; `stop` waits for a start in progress. */
  start(): Promise<void> {
    const starting = this.connect();
    this.starting = starting;
    return starting;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.databaseUrl });
    let gone = false;
    let watch: NodeJS.Timeout | undefined;
    // A broken connection emits 'error' and then 'end': one loss.
    const lose = (reason: string) => {
      if (gone) return;
      gone = true;
      clearInterval(watch);
      this.lost(client, reason);
    };
    let previous: Promise<unknown> = Promise.resolve();
    const query: ListenerQuery = (sql, values) => {
      const next = previous.then(() => client.query(sql, values));
      previous = next.catch(() => undefined);
      return next;
    };
    client.on('notification', (message) => this.handlers.notification(message.payload ?? '', query));
    client.on('error', (error) => lose(error.message));
    client.on('end', () => lose('the connection ended'));
    this.pending = client;
    try {
      await client.connect();
      await query(`LISTEN ${this.channel}`);
      await this.prepare?.(query);
    } catch (error) {
      lose(error instanceof Error ? error.message : String(error));
      return;
    } finally {
      this.pending = undefined;
    }
    if (gone) return;
    // Stopped while the connection was being made (a reconnect during shutdown): nothing may listen after stop.
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    watch = setInterval(() => void this.check(client, query, lose), this.liveness.intervalMs).unref();
    this.handlers.listening();
  }

  /** Loses the connection when a `SELECT 1` on it has no answer in time; one that fails says so through 'error'. */
  private async check(client: pg.Client, query: ListenerQuery, lose: (reason: string) => void): Promise<void> {
    if (await settlesWithin(query('SELECT 1'), this.liveness.timeoutMs)) return;
    lose(`no answer on the listening connection within ${this.liveness.timeoutMs} ms`);
    // Nor would it answer the Terminate that ending it sends: its socket is closed at once.
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    // A connection still being made: cut (a server that does not answer would hold the stop),
    // and its start, which sees `stopped`, ends; wait for it.
    await this.pending?.end().catch(() => undefined);
    await this.starting;
    await this.client?.end().catch(() => undefined);
  }

  private lost(client: pg.Client, reason: string): void {
    if (this.client === client) this.client = undefined;
    client.end().catch(() => undefined);
    if (this.stopped) return;
    this.handlers.lost?.(reason);
    this.warnOfLoss(reason);
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.start();
    }, RELISTEN_DELAY_MS);
    this.retry.unref();
  }
}
