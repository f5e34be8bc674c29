import pg from 'pg';

type Answer = (error: Error | null, result?: unknown) => void;

/**
 * The pool's client: a query that finds no answer within `query_timeout` is answered with
 * node-postgres's read-timeout error and its connection is closed at once. Left to
 * node-postgres, the query would be rejected but kept running on the connection, and TypeORM
 * gives the connection back to the pool without an error, so the next user would wait behind
 * it, or, were it inside a transaction whose ROLLBACK also went unanswered, run in that
 * transaction and commit the failed request's writes with its own. Closed, the server rolls
 * back, and the pool drops the connection.
 *
 * The client applies `query_timeout` itself; node-postgres never sees it. node-postgres's own
 * read timeout wraps a query's callback by assigning the query a new one once made, and with that
 * assignment the rows of answered queries survived young collections: the API process promoted
 * 90-100 MB to the old generation in 12 s of `GET /v1/invoices?limit=50` instead of about 4 MB,
 * to be collected again by full collections (docs/benchmarks.md, "The twenty-fifth session").
 * Here the query is made with its callback.
 */
export class DroppingClient extends pg.Client {
  private readonly unansweredMs: number;

  constructor(config: pg.ClientConfig = {}) {
    const { query_timeout: unansweredMs = 0, ...rest } = config;
    super(rest);
    this.unansweredMs = unansweredMs;
    // The pool listens for a connection's errors while it is idle and TypeORM while it runs a
    // query, but between the two (pg-pool hands a new connection over, TypeORM listens a
    // microtask later) a backend terminated at that moment emitted 'error' to no listener,
    // which threw and ended the process (a review's pg_terminate_backend storm). The error
    // still reaches the query it fails, and the pool drops a connection no longer queryable.
    this.on('error', () => undefined);
  }

  override query(config: unknown, values?: unknown, callback?: unknown): any {
    if (typeof values === 'function') [values, callback] = [undefined, values];
    // A cursor or a stream (the service runs none) answers through its own events, not a callback.
    if (this.unansweredMs === 0 || typeof (config as { submit?: unknown } | null)?.submit === 'function') {
      return (super.query as (...parameters: unknown[]) => unknown)(config, values, callback);
    }
    if (typeof callback === 'function') return this.bounded(config, values, callback as Answer);
    return new Promise((resolve, reject) => this.bounded(config, values, (error, result) => (error ? reject(error) : resolve(result))));
  }

  /** Runs the query; answers `answer` once: with its outcome, or with the read timeout, whichever comes first. */
  private bounded(config: unknown, values: unknown, answer: Answer): void {
    const pending: { answer?: Answer } = { answer };
    let timer: NodeJS.Timeout | undefined;
    (super.query as (...parameters: unknown[]) => unknown)(config, values, (error: Error | null, result: unknown) => {
      clearTimeout(timer);
      answerOnce(pending, error, result);
    });
    // Set once node-postgres has taken the query: one it refuses by throwing leaves no timer to
    // close the connection later. It answers asynchronously; were a query ever answered within
    // this call, `unanswered` would find it answered and leave the connection open.
    timer = setTimeout(() => this.unanswered(pending), this.unansweredMs);
  }

  private unanswered(pending: { answer?: Answer }): void {
    if (pending.answer === undefined) return;
    // Closed before its caller hears of it, so that no caller can give it back as usable. end()
    // cuts a connection with a query still running; the pool removes it when it is given back.
    this.end().catch(() => undefined);
    answerOnce(pending, new Error(READ_TIMEOUT));
  }
}

function answerOnce(pending: { answer?: Answer }, error: Error | null, result?: unknown): void {
  const answer = pending.answer;
  pending.answer = undefined;
  answer?.(error, result);
}

/** node-postgres's words for a query that had no answer within query_timeout (transient-faults.ts knows them). */
const READ_TIMEOUT = 'Query read timeout';
