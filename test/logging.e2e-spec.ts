import request from 'supertest';
import { Scope } from '../src/platform/catalog/scopes.js';
import { startApi, type TestApi } from './support/api.js';
import { type LogLine, listeningPort, type MainProcess, spawnMain } from './support/main-process.js';
import { createTenantSession } from './support/tenant-session.js';

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

  async function logOf(traceId: string): Promise<LogLine> {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const line = main.lines().find((entry) => entry.trace_id === traceId && entry.msg === 'request completed');
      if (line) return line;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no request line for ${traceId} in:\n${main.stdout()}`);
  }

  it('writes one JSON line per request under its trace id, with credentials redacted', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const secret = session.key.split('_').at(-1)!;
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await request(base)
      .get('/v1/openapi.json')
      .set('Authorization', session.auth)
      .set('Cookie', 'sid=cookie-value-that-must-not-leak')
      .set('Idempotency-Key', 'idem-123')
      .set('traceparent', `00-${traceId}-00f067aa0ba902b7-01`);
    expect(res.status).toBe(200);
    expect(res.headers['x-trace-id']).toBe(traceId);

    const line = await logOf(traceId);
    expect(line).toMatchObject({
      level: 30,
      trace_id: traceId,
      req: { method: 'GET', url: '/v1/openapi.json', headers: { authorization: '[Redacted]', cookie: '[Redacted]', 'idempotency-key': 'idem-123' } },
      res: { statusCode: 200 },
    });
    expect(typeof line.responseTime).toBe('number');
    expect(main.stdout()).not.toContain(secret);
    expect(main.stdout()).not.toContain(session.key);
    expect(main.stdout()).not.toContain('cookie-value-that-must-not-leak');
  });

  it('logs requests refused before routing (version, unknown key, unknown route) with their trace ids', async () => {
    const refused = await request(base).get('/v1/invoices').set('OH-Version', '1999-01-01');
    const unknownKey = `oh_live_abcdefghijkl_${'S'.repeat(43)}`;
    const notFound = await request(base).get('/v1/nothing-here').set('Authorization', `Bearer ${unknownKey}`);
    expect(refused.status).toBe(400);
    expect(notFound.status).toBe(404);
    expect((await logOf(refused.headers['x-trace-id'])).res.statusCode).toBe(400);
    expect((await logOf(notFound.headers['x-trace-id'])).req.headers.authorization).toBe('[Redacted]');
    expect(main.stdout()).not.toContain('S'.repeat(43));
  });

  it('writes nothing but JSON lines on stdout', () => {
    const all = main.lines();
    expect(all.length).toBeGreaterThan(3);
    for (const line of all) expect(typeof line.level).toBe('number');
  });
});
