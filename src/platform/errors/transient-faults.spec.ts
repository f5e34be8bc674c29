import { MaxRetriesPerRequestError } from 'ioredis/built/errors/index.js';
import { QueryRunnerAlreadyReleasedError } from 'typeorm';
import { isTransientFault } from './transient-faults.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isTransientFault', () => {
  it.each([
    ['a statement canceled by statement_timeout', withCode('57014', 'canceling statement due to statement timeout')],
    ['a deadlock', withCode('40P01')],
    ['a serialization failure', withCode('40001')],
    ['a lock not granted', withCode('55P03')],
    ['too many connections', withCode('53300')],
    ['the server shutting down', withCode('57P01')],
    ['a refused connection', withCode('ECONNREFUSED')],
    ["the pool's wait running out", new Error('timeout exceeded when trying to connect')],
    ['the server going away', new Error('Connection terminated unexpectedly')],
    ["a transaction's connection dying under it (TypeORM)", new QueryRunnerAlreadyReleasedError()],
    // Before: 500s in a review's pg_terminate_backend storm, and while the database refused connections.
    ['a query on a connection that had failed (node-postgres)', new Error('Client has encountered a connection error and is not queryable')],
    ['a query on a closed connection (node-postgres)', new Error('Client was closed and is not queryable')],
    ['a database not accepting connections now', withCode('55000', 'database "integrations" is not currently accepting connections')],
    // Before: the relay's sweep logged it as a fault, with its stack, through a Redis outage.
    ['a Redis command given up after its retries (ioredis)', new MaxRetriesPerRequestError(20)],
  ])('counts %s', (_, error) => {
    expect(isTransientFault(error)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('23505')],
    ['a syntax error', withCode('42601')],
    ['another object not in the state a statement needs', withCode('55000', 'currval of sequence "s" is not yet defined in this session')],
    ['a plain error', new Error('boom')],
    ['a string', 'timeout exceeded when trying to connect'],
    ['null', null],
  ])('does not count %s', (_, error) => {
    expect(isTransientFault(error)).toBe(false);
  });
});
