import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import request from 'supertest';
import { Scope } from '../src/platform/catalog/scopes.js';
import { startApi, type TestApi } from './support/api.js';
import { type LogLine, listeningPort, type MainProcess, spawnMain, spawnNode } from './support/main-process.js';
import { createTenantSession } from './support/tenant-session.js';
import { waitFor } from './support/wait-for.js';

/**
 * The production entry point (`node dist/main.js`, built by `npm test`) as a child process, its
 * stdout parsed line by line: what operators' log shippers would see.
 */
describe('structured request logs (e2e, dist/main.js)', () => {
  let api: TestApi;
  let main: MainProcess;
  let base: string;

  beforeAll(async () => {
    api = await startApi();
    main = spawnMain({ APP_ROLES: 'api', PORT: '0', PUBLIC_BASE_URL: 'https://api.test.local' });
    base = `http://127.0.0.1:${await listeningPort(main)}`;
  }, 90_000);

  afterAll(async () => {
    await main.stop();
    await api.close();
  });

  const logOf = (traceId: string): Promise<LogLine> =>
    waitFor(async () => main.lines().find((entry) => entry.trace_id === traceId && entry.msg === 'request completed'), 2500, `the request line of ${traceId}`);

  it('writes one compact line per request: method, route pattern, status, duration, trace id, key prefix', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const secret = session.key.split('_').at(-1)!;
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const id = randomUUID();
    const res = await request(base)
      .get(`/v1/invoices/${id}?expand=x`)
      .set('Authorization', session.auth)
      .set('Cookie', 'sid=cookie-value-that-must-not-leak')
      .set('Idempotency-Key', 'idem-123')
      .set('traceparent', `00-${traceId}-00f067aa0ba902b7-01`);
    expect(res.status).toBe(404);
    expect(res.headers['x-trace-id']).toBe(traceId);

    const { time, pid, hostname, duration_ms, ...line } = await logOf(traceId);
    expect(line).toEqual({
      level: 30,
      msg: 'request completed',
      trace_id: traceId,
      method: 'GET',
      route: '/v1/invoices/:id',
      status: 404,
      key_prefix: session.key.split('_')[2],
    });
    expect([typeof time, typeof pid, typeof hostname, typeof duration_ms]).toEqual(['string', 'number', 'string', 'number']);
    const out = main.stdout();
    for (const leak of [secret, session.key, 'cookie-value-that-must-not-leak', 'idem-123', id, 'expand']) expect(out).not.toContain(leak);
  });

  it('logs requests refused before routing (version, unknown key, unknown route) with their trace ids', async () => {
    const refused = await request(base).get('/v1/invoices').set('OH-Version', '1999-01-01');
    const unknownKey = `oh_live_abcdefghijkl_${'S'.repeat(43)}`;
    const notFound = await request(base).get('/v1/nothing-here').set('Authorization', `Bearer ${unknownKey}`);
    expect(refused.status).toBe(400);
    expect(notFound.status).toBe(404);
    expect(await logOf(refused.headers['x-trace-id'])).toMatchObject({ status: 400, route: null, method: 'GET' });
    expect(await logOf(notFound.headers['x-trace-id'])).toMatchObject({ status: 404, route: null, key_prefix: null });
    expect(main.stdout()).not.toContain('S'.repeat(43));
  });

  // Before: the HEAD named the route it had only tried (its GET answered route: null).
  it('logs a HEAD or GET on a path served only by POST as matching no route: 405, route null', async () => {
    const path = '/v1/invoices/00000000-0000-0000-0000-000000000000/void';
    for (const answer of [await request(base).head(path), await request(base).get(path)]) {
      expect(answer.status).toBe(405);
      expect(await logOf(answer.headers['x-trace-id'])).toMatchObject({ status: 405, route: null });
    }
  });

  it('refuses a key sent in X-API-Key, ?access_token= or ?api_key= with 401, and never logs it', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const secret = session.key.split('_').at(-1)!;
    const answers = await Promise.all([
      request(base).get('/v1/invoices').set('X-API-Key', session.key),
      request(base).get('/v1/invoices').set('X-API-Key', session.key).set('Authorization', session.auth),
      request(base).get(`/v1/invoices?access_token=${session.key}`),
      request(base).get(`/v1/invoices?limit=1&api_key=${session.key}`).set('Authorization', session.auth),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.detail_key).toBe('errors.integrations.unauthenticated');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="Integrations API", error="invalid_request"');
      expect(await logOf(res.headers['x-trace-id'])).toMatchObject({ status: 401, route: '/v1/invoices' });
    }
    expect(main.stdout()).not.toContain(secret);
    expect(main.stdout()).not.toContain(session.key.split('_')[2] + '_');
  });

  it('writes nothing but JSON lines on stdout', () => {
    const all = main.lines();
    expect(all.length).toBeGreaterThan(3);
    for (const line of all) expect(typeof line.level).toBe('number');
  });
});

/**
 * The process's standard output (`createLogger` without a destination, from dist/), in a child
 * process whose stdout is a pipe, as under a log shipper.
 */
describe('log lines on standard output (e2e, dist/)', () => {
  /** Runs `body` as an ES module after importing dist's createLogger; `writes` counts the writes to stdout. */
  function run(body: string): MainProcess {
    const script = `
      import fs from 'node:fs';
      let writes = 0;
      for (const name of ['write', 'writeSync', 'writev', 'writevSync']) {
        const original = fs[name];
        fs[name] = (fd, ...rest) => { if (fd === 1) writes += 1; return original(fd, ...rest); };
      }
      process.on('exit', () => process.stderr.write('writes=' + writes));
      const { createLogger } = await import(${JSON.stringify(join(process.cwd(), 'dist/platform/logging/logger.js'))});
      ${body}`;
    return spawnNode(['--input-type=module', '-e', script]);
  }

  it('gathers the lines of every logger of the process into few writes, and writes them all at exit', async () => {
    const child = run(`
      const [a, b] = [createLogger({ LOG_LEVEL: 'info' }), createLogger({ LOG_LEVEL: 'info' })];
      for (let n = 0; n < 1000; n += 1) (n % 2 === 0 ? a : b).info({ n, delivery_id: '${randomUUID()}' }, 'webhook attempt');
      process.exit(0);`);
    expect(await child.exit).toBe(0);
    const lines = child.lines();
    expect(lines.map((line) => line.n)).toEqual(Array.from({ length: 1000 }, (_, n) => n));
    const writes = Number(/writes=(\d+)/.exec(child.stderr())![1]);
    // About 150 bytes a line, gathered into writes of 4 kB or more: one write per line before.
    expect(writes).toBeGreaterThan(0);
    expect(writes).toBeLessThanOrEqual(50);
  });

  it('writes a lone line within a fraction of a second, without waiting for more', async () => {
    const child = run(`
      createLogger({ LOG_LEVEL: 'info' }).info({ lone: true }, 'worker started');
      setTimeout(() => undefined, 30_000);`);
    try {
      await waitFor(async () => child.stdout().includes('\n'), 10_000, 'the line');
      expect(child.lines()).toEqual([expect.objectContaining({ lone: true, msg: 'worker started' })]);
    } finally {
      await child.stop();
    }
  });
});
