import { Writable } from 'node:stream';
import { createLogger, httpLoggerOptions, REDACTED } from './logger.js';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')));
      done();
    },
  });
  return { logger: createLogger({ LOG_LEVEL: level }, stream), lines };
}

describe('createLogger', () => {
  it('writes JSON lines with an ISO timestamp', () => {
    const { logger, lines } = capture('info');
    logger.info({ answer: 42 }, 'hello');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, msg: 'hello', answer: 42 });
    expect(lines[0].time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('honours the level', () => {
    const { logger, lines } = capture('warn');
    logger.info('dropped');
    logger.warn('kept');
    expect(lines.map((line) => line.msg)).toEqual(['kept']);
  });

  it('redacts credentials in request and response headers', () => {
    const { logger, lines } = capture('info');
    logger.info({
      req: { headers: { authorization: 'Bearer oh_live_abc_SECRET', cookie: 'sid=SECRET', 'proxy-authorization': 'Basic SECRET', 'idempotency-key': 'k-1' } },
      res: { headers: { 'set-cookie': 'sid=SECRET' } },
    });
    expect(JSON.stringify(lines)).not.toContain('SECRET');
    expect(lines[0]).toMatchObject({
      req: { headers: { authorization: REDACTED, cookie: REDACTED, 'proxy-authorization': REDACTED, 'idempotency-key': 'k-1' } },
      res: { headers: { 'set-cookie': REDACTED } },
    });
  });

  it.each(['key', 'secret', 'token', 'password', 'api_key', 'secret_hash'])('redacts a %s member at any of the first four levels', (member) => {
    const { logger, lines } = capture('info');
    logger.info({ [member]: 'SECRET', a: { [member]: 'SECRET', b: { [member]: 'SECRET', c: { [member]: 'SECRET' } } }, list: [{ [member]: 'SECRET' }] });
    expect(JSON.stringify(lines)).not.toContain('SECRET');
    expect(lines[0][member]).toBe(REDACTED);
  });

  it('leaves other members alone', () => {
    const { logger, lines } = capture('info');
    logger.info({ keys: 3, monkey: 'banana', tokens_used: 7 });
    expect(lines[0]).toMatchObject({ keys: 3, monkey: 'banana', tokens_used: 7 });
  });
});

describe('httpLoggerOptions', () => {
  const { logger } = capture('info');
  const options = httpLoggerOptions(logger);

  it('uses the trace id as the request id, under trace_id', () => {
    const request = { traceId: 'a'.repeat(32), headers: {} };
    expect(options.genReqId!(request as never, {} as never)).toBe('a'.repeat(32));
    expect(options.customAttributeKeys?.reqId).toBe('trace_id');
  });

  it('falls back to the traceparent when the trace middleware has not run', () => {
    const request = { headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } };
    expect(options.genReqId!(request as never, {} as never)).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('logs 5xx and failures at error, everything else at info', () => {
    const level = (status: number, error?: Error) => options.customLogLevel!({} as never, { statusCode: status } as never, error);
    expect([level(200), level(304), level(404), level(429), level(500), level(503), level(200, new Error('x'))]).toEqual([
      'info',
      'info',
      'info',
      'info',
      'error',
      'error',
      'error',
    ]);
  });
});
