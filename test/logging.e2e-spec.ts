import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import request from 'supertest';
import { Scope } from '../src/platform/catalog/scopes.js';
import { startApi, type TestApi } from './support/api.js';
import { createTenantSession } from './support/tenant-session.js';

type LogLine = Record<string, any>;

/**
 * The production entry point (`node dist/main.js`, built by `npm test`) as a child process, its
 * stdout parsed line by line: what operators' log shippers would see.
 */
describe('structured request logs (e2e, dist/main.js)', () => {
  let api: TestApi;
  let child: ChildProcess;
  let stdout = '';
  let base: string;

  beforeAll(async () => {
    api = await startApi();
    child = spawn(process.execPath, [join(process.cwd(), 'dist/main.js')], {
      env: { ...process.env, APP_ROLES: 'api', PORT: '0', LOG_LEVEL: 'info', PUBLIC_BASE_URL: 'https://api.test.local' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line in:\n${stdout}`)), 60_000);
      child.stdout!.on('data', () => {
        const listening = lines().find((line) => line.context === 'main' && typeof line.port === 'number');
        if (listening) {
          clearTimeout(timer);
          resolve(listening.port);
        }
      });
      child.once('exit', (code) => reject(new Error(`dist/main.js exited with ${code}:\n${stdout}`)));
    });
    base = `http://127.0.0.1:${port}`;
  }, 90_000);

  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await api.close();
  });

  function lines(): LogLine[] {
    return stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as LogLine);
  }

  async function logOf(traceId: string): Promise<LogLine> {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const line = lines().find((entry) => entry.trace_id === traceId && entry.msg === 'request completed');
      if (line) return line;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no request line for ${traceId} in:\n${stdout}`);
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
    expect(stdout).not.toContain(secret);
    expect(stdout).not.toContain(session.key);
    expect(stdout).not.toContain('cookie-value-that-must-not-leak');
  });

  it('logs requests refused before routing (version, unknown key, unknown route) with their trace ids', async () => {
    const refused = await request(base).get('/v1/invoices').set('OH-Version', '1999-01-01');
    const unknownKey = `oh_live_abcdefghijkl_${'S'.repeat(43)}`;
    const notFound = await request(base).get('/v1/nothing-here').set('Authorization', `Bearer ${unknownKey}`);
    expect(refused.status).toBe(400);
    expect(notFound.status).toBe(404);
    expect((await logOf(refused.headers['x-trace-id'])).res.statusCode).toBe(400);
    expect((await logOf(notFound.headers['x-trace-id'])).req.headers.authorization).toBe('[Redacted]');
    expect(stdout).not.toContain('S'.repeat(43));
  });

  it('writes nothing but JSON lines on stdout', () => {
    const all = lines();
    expect(all.length).toBeGreaterThan(3);
    for (const line of all) expect(typeof line.level).toBe('number');
  });
});
