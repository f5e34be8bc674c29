import { QueryFailedError } from 'typeorm';
import { captureLogs } from '../../../test/support/log-capture.js';
import { fieldLineLogger, PinoNestLogger, REDACTED } from './logger.js';

describe('createLogger', () => {
  it('writes JSON lines with an ISO timestamp', () => {
    const { logger, lines } = captureLogs('info');
    logger.info({ answer: 42 }, 'hello');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, msg: 'hello', answer: 42 });
    expect(lines[0].time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('honours the level', () => {
    const { logger, lines } = captureLogs('warn');
    logger.info('dropped');
    logger.warn('kept');
    expect(lines.map((line) => line.msg)).toEqual(['kept']);
  });

  it.each(['key', 'secret', 'token', 'password', 'api_key', 'secret_hash'])('redacts a %s member at any of the first four levels', (member) => {
    const { logger, lines } = captureLogs('info');
    logger.info({ [member]: 'SECRET', a: { [member]: 'SECRET', b: { [member]: 'SECRET', c: { [member]: 'SECRET' } } }, list: [{ [member]: 'SECRET' }] });
    expect(JSON.stringify(lines)).not.toContain('SECRET');
    expect(lines[0][member]).toBe(REDACTED);
  });

  it("writes a failed statement's text but not the values bound into it", () => {
    const { logger, lines } = captureLogs('info');
    const driverError = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014', severity: 'ERROR', where: 'SQL statement with https://hooks.example/in?token=SECRET', detail: 'Key (url)=(SECRET) already exists.' });
    logger.error({ err: new QueryFailedError('UPDATE "webhook_endpoints" SET "url" = $1', ['https://hooks.example/in?token=SECRET'], driverError) }, 'failed');
    expect(JSON.stringify(lines)).not.toContain('SECRET');
    expect(lines[0].err).toMatchObject({ type: 'QueryFailedError', query: 'UPDATE "webhook_endpoints" SET "url" = $1', code: '57014', driverError: { code: '57014', severity: 'ERROR' } });
  });

  it('leaves other members alone', () => {
    const { logger, lines } = captureLogs('info');
    logger.info({ keys: 3, monkey: 'banana', tokens_used: 7 });
    expect(lines[0]).toMatchObject({ keys: 3, monkey: 'banana', tokens_used: 7 });
  });
});

describe('fieldLineLogger', () => {
  it('writes a line of named fields as the process logger does, its bindings included', () => {
    const { logger, lines } = captureLogs('info');
    const fields = { endpoint_id: 'e', delivery_id: 'd', attempt: 2, status: 204, duration_ms: 3, outcome: 'delivered' };
    logger.info({ context: 'Handler', ...fields }, 'webhook attempt');
    fieldLineLogger(logger, { context: 'Handler' }).info(fields, 'webhook attempt');
    const [plain, fieldLine] = lines.map(({ time: _time, ...line }) => line);
    expect(lines).toHaveLength(2);
    expect(fieldLine).toEqual(plain);
    expect(Object.keys(fieldLine)).toEqual(Object.keys(plain));
  });

  it("keeps the process logger's level", () => {
    const { logger, lines } = captureLogs('warn');
    fieldLineLogger(logger).info({ attempt: 1 }, 'dropped');
    expect(lines).toHaveLength(0);
  });
});

describe('PinoNestLogger', () => {
  it('writes Nest messages with their context, merging an object first argument', () => {
    const { logger, lines } = captureLogs('info');
    const nest = new PinoNestLogger(logger);
    nest.log('Mapped route', 'RouterExplorer');
    nest.error({ err: new Error('boom'), trace_id: 'a'.repeat(32) }, 'unhandled error', 'ProblemFilter');
    nest.error('failed', 'Error: failed\n    at x', 'Worker');
    nest.debug('dropped', 'Ctx');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ level: 30, msg: 'Mapped route', context: 'RouterExplorer' });
    expect(lines[1]).toMatchObject({ level: 50, msg: 'unhandled error', context: 'ProblemFilter', trace_id: 'a'.repeat(32), err: { message: 'boom' } });
    expect(lines[2]).toMatchObject({ level: 50, msg: 'failed', context: 'Worker', stack: 'Error: failed\n    at x' });
  });

  it('redacts secrets in what it writes', () => {
    const { logger, lines } = captureLogs('info');
    new PinoNestLogger(logger).warn({ token: 'SECRET' }, 'x', 'Ctx');
    expect(JSON.stringify(lines)).not.toContain('SECRET');
  });
});
