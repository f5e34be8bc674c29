import { EventEmitter } from 'node:events';
import { captureLogs } from '../../../test/support/log-capture.js';
import { markAnsweredOnSocket, onRequestDone, type RequestOutcome, requestLogLine, routePattern } from './request-log.js';

const outcome = (status: number): RequestOutcome => ({ method: 'GET', route: '/v1/invoices/:id', status, durationMs: 12.345 });

describe('request log line', () => {
  it('is one compact line of method, route pattern, status, duration, trace id and key prefix', () => {
    const { logger, lines } = captureLogs('info');
    requestLogLine(logger)({ traceId: 'a'.repeat(32), keyPrefix: 'abcdefghijkl' } as never, outcome(200));
    expect(lines).toHaveLength(1);
    const { time, pid, hostname, ...rest } = lines[0];
    expect([typeof time, typeof pid, typeof hostname]).toEqual(['string', 'number', 'string']);
    expect(rest).toEqual({
      level: 30,
      msg: 'request completed',
      trace_id: 'a'.repeat(32),
      method: 'GET',
      route: '/v1/invoices/:id',
      status: 200,
      duration_ms: 12.3,
      key_prefix: 'abcdefghijkl',
    });
  });

  it('logs 5xx at error and the rest at info, a client that hung up (499) included, and nothing below the level', () => {
    const { logger, lines } = captureLogs('warn');
    const log = requestLogLine(logger);
    for (const status of [200, 404, 429, 500, 499]) log({ traceId: 't' } as never, outcome(status));
    expect(lines.map((line) => [line.status, line.level])).toEqual([[500, 50]]);
    const all = captureLogs('info');
    requestLogLine(all.logger)({ traceId: 't' } as never, outcome(499));
    expect(all.lines.map((line) => [line.status, line.level])).toEqual([[499, 30]]);
  });
});

describe('onRequestDone', () => {
  const run = (finished: boolean, socket: object = {}, destroyed = false) => {
    const response = Object.assign(new EventEmitter(), { statusCode: 201, writableFinished: finished });
    const request: { socket: object | null } & Record<string, unknown> = { method: 'POST', baseUrl: '', route: { path: '/v1/invoices', methods: { post: true } }, socket };
    const seen: RequestOutcome[] = [];
    let nextCalled = false;
    onRequestDone((_request, done) => seen.push(done))(request as never, response as never, () => (nextCalled = true));
    expect(seen).toEqual([]);
    // Node detaches the socket of a request destroyed while its body was read (one over the limit).
    if (destroyed) request.socket = null;
    response.emit('close');
    response.emit('close');
    expect(nextCalled).toBe(true);
    return seen;
  };

  it('reports once per request with the route pattern, status and duration', () => {
    const [done, ...more] = run(true);
    expect(more).toEqual([]);
    expect(done).toMatchObject({ method: 'POST', route: '/v1/invoices', status: 201 });
    expect(done.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('reports a request the client abandoned as 499', () => {
    expect(run(false)[0].status).toBe(499);
  });

  it('reports the status its socket was answered with directly, whatever its own response said', () => {
    const socket = {};
    markAnsweredOnSocket(socket, 408);
    expect(run(true, socket)[0].status).toBe(408);
    expect(run(false, socket)[0].status).toBe(408);
  });

  it('reports a request destroyed while its body was read, whose socket is gone by its close', () => {
    // Before: a TypeError in the close listener, which ended the process (an agent-tool call over 1 MB).
    expect(run(true, {}, true)[0].status).toBe(201);
  });

  it('has no route pattern for a request no route matched', () => {
    expect(routePattern({ baseUrl: '' } as never)).toBeNull();
  });
});
