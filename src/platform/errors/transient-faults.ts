/**
 * PostgreSQL's codes for a statement it gave up on, or could not run now, where the same
 * request may succeed a moment later: canceled by `statement_timeout` (57014), a lock not
 * granted (55P03), no connection slot (53300), the server shutting down or starting (57P01,
 * 57P03), and a serialization failure or deadlock (40001, 40P01).
 */
const RETRYABLE_SQLSTATES = new Set(['57014', '55P03', '53300', '57P01', '57P03', '40001', '40P01']);

/** The socket to a backing service failed (refused, reset, timed out). */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);

/**
 * node-postgres's own words when no connection could be had, or the server stopped answering:
 * the pool's wait ran out, the server went away, a query had no answer within query_timeout, or
 * a query was sent on a connection that had already failed or been closed (a backend terminated
 * between two statements of a request); and PostgreSQL's refusal of a database it does not
 * accept connections to now (SQLSTATE 55000, which otherwise means a program error).
 */
const NO_CONNECTION =
  /^(timeout exceeded when trying to connect|Connection terminated|Query read timeout|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|database ".*" is not currently accepting connections)/;

/** ioredis's words for a command it could not get answered: timed out, or the connection closed. */
const REDIS_UNANSWERED = /^(Command timed out|Connection is closed)/;

/** ioredis's error for a command given up after its connection's retries (Redis away). */
const REDIS_GAVE_UP = 'MaxRetriesPerRequestError';

/**
 * TypeORM's errors for a transaction whose connection died under it: its query runner was
 * released when the connection ended, and the transaction's next statement finds it so.
 */
const RELEASED_RUNNER = new Set(['QueryRunnerAlreadyReleasedError', 'QueryRunnerProviderAlreadyReleasedError']);

/**
 * Whether `error` says a backing service (PostgreSQL, Redis) could not serve the request now,
 * rather than that the request or the code is wrong: the request is worth repeating, so its
 * answer is 503 with Retry-After, not 500. Duck-typed, so TypeORM's QueryFailedError (which
 * copies the driver error's `code`) and pg's own errors both count.
 */
export function isTransientFault(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message, name } = error as { code?: unknown; message?: unknown; name?: unknown };
  if (typeof code === 'string' && (RETRYABLE_SQLSTATES.has(code) || CONNECTION_CODES.has(code))) return true;
  if (typeof name === 'string' && (RELEASED_RUNNER.has(name) || name === REDIS_GAVE_UP)) return true;
  return typeof message === 'string' && (NO_CONNECTION.test(message) || REDIS_UNANSWERED.test(message));
}
