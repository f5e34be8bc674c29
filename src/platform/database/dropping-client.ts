import pg from 'pg';

/**
 * The pool's client: a connection whose query found no answer within `query_timeout` is closed
 * at once. node-postgres rejects that query but keeps it running on the connection, and TypeORM
 * gives the connection back to the pool without an error, so the next user would wait behind it,
 * or, were it inside a transaction whose ROLLBACK also went unanswered, run in that transaction
 * and commit the failed request's writes with its own. Closed, the server rolls back, and the
 * pool drops the connection.
 */
export class DroppingClient extends pg.Client {
  override query(...args: unknown[]): any {
    const outcome = (super.query as (...parameters: unknown[]) => unknown)(...args);
    if (outcome instanceof Promise) outcome.catch((error: unknown) => this.dropOnReadTimeout(error));
    return outcome;
  }

  private dropOnReadTimeout(error: unknown): void {
    // end() cuts a connection with a query still running, without an error event; the pool then removes it when it is given back.
    if ((error as Error | undefined)?.message === READ_TIMEOUT) this.end().catch(() => undefined);
  }
}

/** node-postgres's words for a query that had no answer within query_timeout. */
const READ_TIMEOUT = 'Query read timeout';
