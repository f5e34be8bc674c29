import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { McpTokensService } from '../src/mcp/mcp-tokens.service.js';
import { Scope } from '../src/platform/catalog/scopes.js';
import { TenantsService } from '../src/platform/tenancy/tenants.service.js';
import { startApi, type TestApi } from './support/api.js';
import { createEndpoint, deliveriesOf, isolatedDatabase, publishEvents } from './support/deliveries.js';
import { createFinanceFixture } from './support/finance.js';
import { freePort } from './support/free-port.js';
import { type LogLine, listeningPort, type MainProcess, spawnMain, spawnNpmScript } from './support/main-process.js';
import { tcpProxy } from './support/tcp-proxy.js';
import { createTenantSession } from './support/tenant-session.js';
import { startReceiver } from './support/webhook-receiver.js';
import { waitFor } from './support/wait-for.js';

/** A POST whose headers and first bytes are sent now and the rest on `finish()`. */
async function slowRequest(port: number, path: string, body: string, headers: Record<string, string> = {}) {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\n${extra}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`);
  return {
    finish: () => socket.write(body.slice(5)),
    answer: () => waitFor(async () => answer.includes('\r\n\r\n') && answer),
  };
}

const line = (main: MainProcess, msg: string): LogLine | undefined => main.lines().find((entry) => entry.msg === msg);

/**
 * `node dist/main.js` started and stopped as an operator would (issue 19): one warning, JSON on
 * stdout, links that follow PORT, and a SIGTERM that drains every role and exits 0.
 */
describe('the process from start to SIGTERM (e2e, dist/main.js)', () => {
  let database: { url: string; drop: () => Promise<void> };
  let api: TestApi;
  const prefix = `${process.env.REDIS_PREFIX}-lifecycle-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    database = await isolatedDatabase('lifecycle');
    api = await startApi({ env: { DATABASE_URL: database.url, REDIS_PREFIX: prefix } });
  });
  afterAll(async () => {
    await api.close();
    await database.drop();
  });

  it("runs every role with one SECRETS_KEY warning, JSON alone on stdout, operations.md's default links with a warning; SIGTERM finishes a request in flight and exits 0", async () => {
    const [port, mcpPort] = [await freePort(), await freePort()];
    const main = spawnMain({ DATABASE_URL: database.url, REDIS_PREFIX: prefix, APP_ROLES: 'api,mcp,worker', PORT: String(port), MCP_PORT: String(mcpPort), PUBLIC_BASE_URL: '', SECRETS_KEY: '' });
    try {
      await listeningPort(main);
      await waitFor(async () => line(main, 'worker started'), 60_000, 'the worker to start');
      expect(main.lines().filter((entry) => String(entry.msg).includes('SECRETS_KEY is not set'))).toHaveLength(1);

      const document = (await (await fetch(`http://127.0.0.1:${port}/v1/openapi.json`)).json()) as { servers: { url: string }[] };
      // PUBLIC_BASE_URL unset: operations.md's default, named once in a warning since PORT is another.
      expect(document.servers).toEqual([{ url: 'http://localhost:3000' }]);
      expect(main.lines().filter((entry) => String(entry.msg).startsWith('PUBLIC_BASE_URL is unset'))).toMatchObject([{ level: 40 }]);

      // On each server, a request whose body is still on its way when the signal comes: both are answered, then the process exits.
      const rest = await slowRequest(port, '/v1/invoices', JSON.stringify({ customer_id: 'x', currency: 'EUR', lines: [] }));
      // The agent-tool server reads a body only after the token is accepted.
      const session = await createTenantSession(api.app, { scopes: [Scope.All] });
      await api.app.get(TenantsService).setPermissions(session.userId, ['hr.employees:read']);
      const { token } = await api.app.get(McpTokensService).create({ tenantId: session.tenant.id, userId: session.userId, tools: ['*'] }, []);
      // The process's first event makes it build the event schemas; Nest's log lines, the worker's
      // at shutdown below, must outlive that.
      const finance = await createFinanceFixture(api.app, session.tenant.id);
      const created = await fetch(`http://127.0.0.1:${port}/v1/invoices`, {
        method: 'POST',
        headers: { Authorization: session.auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(finance.invoiceBody()),
      });
      expect(created.status).toBe(201);
      const tools = await slowRequest(mcpPort, '/tools/call', JSON.stringify({ name: 'list_records', arguments: { resource: 'employees' } }), {
        Authorization: `Bearer ${token}`,
        'X-OH-Tenant': session.tenant.slug,
      });
      // Answered after the requests above were read on their own connections, so they are in flight.
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${mcpPort}/handshake`)).status).toBe(200);
      main.child.kill('SIGTERM');
      await waitFor(async () => line(main, 'shutting down'), 10_000, 'the shutdown to begin');
      rest.finish();
      tools.finish();
      expect(await main.exit).toBe(0);
      expect(await rest.answer()).toMatch(/^HTTP\/1\.1 401 /);
      expect(await tools.answer()).toMatch(/^HTTP\/1\.1 200 /);

      expect(line(main, 'api stopped')).toMatchObject({ role: 'api', in_flight_requests: 1 });
      expect(line(main, 'mcp stopped')).toMatchObject({ role: 'mcp', in_flight_requests: 1 });
      expect(line(main, 'worker stopped')).toMatchObject({ role: 'worker' });
      expect(line(main, 'delivery attempts drained')).toMatchObject({ in_flight_attempts: 0 });
      // Nor does the application that built the event schemas announce itself.
      expect(main.lines().filter((entry) => entry.msg === 'NoRoutes dependencies initialized' || String(entry.msg).includes('PREVIEW mode'))).toEqual([]);
      expect(line(main, 'shut down')).toMatchObject({ signal: 'SIGTERM', duration_ms: expect.any(Number) });
      for (const entry of main.lines()) expect(typeof entry.level).toBe('number');
      expect(main.stderr()).toBe('');
    } finally {
      await main.stop();
    }
  }, 120_000);

  it('stops on a SIGTERM sent to npm start:prod, draining and exiting 0, with every timeout at its longest', async () => {
    // npm start is the build, then the same command.
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.start).toBe(`npm run build && ${scripts['start:prod']}`);
    const port = await freePort();
    const npm = spawnNpmScript('start:prod', {
      DATABASE_URL: database.url,
      REDIS_PREFIX: prefix,
      APP_ROLES: 'api,worker',
      PORT: String(port),
      PUBLIC_BASE_URL: `http://localhost:${port}`,
      DATABASE_STATEMENT_TIMEOUT_MS: '2147483647',
      WEBHOOK_TIMEOUT_MS: '2147483647',
    });
    try {
      await listeningPort(npm);
      await waitFor(async () => line(npm, 'worker started'), 60_000, 'the worker to start');
      npm.child.kill('SIGTERM');
      // Before: npm's shell died and npm exited 143 at once, leaving the service running; the margins
      // added to a longest timeout overflowed Node's timers, which then fired at once.
      expect(await npm.exit).toBe(0);
      expect(line(npm, 'shut down')).toBeDefined();
      expect(line(npm, 'worker stopped')).not.toHaveProperty('timed_out');
      expect(npm.stderr()).not.toContain('TimeoutOverflowWarning');
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    } finally {
      npm.killGroup();
    }
  });

  it('waits out Redis unreachable at start, delivers once it is back, and stops on SIGTERM while it is down again', async () => {
    const redisUrl = new URL(process.env.REDIS_URL!);
    const redis = await tcpProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
    const receiver = await startReceiver(() => ({ status: 204 }));
    const main = spawnMain({
      DATABASE_URL: database.url,
      REDIS_URL: `redis://127.0.0.1:${redis.port}`,
      REDIS_PREFIX: prefix,
      APP_ROLES: 'worker',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
      WEBHOOK_SWEEP_INTERVAL_MS: '500',
      WEBHOOK_TIMEOUT_MS: '1000',
    });
    try {
      // An outage longer than the delivery gate's 2 s command timeout, which used to fail the start.
      await waitFor(async () => Date.now() - (redis.firstRefusalAt() ?? Infinity) > 3_000 || main.child.exitCode !== null, 60_000, 'a 3 s outage');
      expect([main.child.exitCode, main.stderr()]).toEqual([null, '']);
      redis.up();
      await waitFor(async () => line(main, 'worker started'), 30_000, 'the worker to start once Redis is back');

      const session = await createTenantSession(api.app, { scopes: [Scope.All] });
      await createEndpoint(api.app, { tenantId: session.tenant.id, apiKeyId: session.keyId }, { url: receiver.url('/after-outage') });
      await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
      await waitFor(async () => receiver.requests.length > 0, 30_000, 'the delivery once Redis is back');

      // BullMQ's close waits for Redis for ever: the worker's stop is bounded instead.
      redis.down();
      main.child.kill('SIGTERM');
      expect(await main.exit).toBe(0);
      expect(line(main, 'worker stopped')).toMatchObject({ role: 'worker', timed_out: true });
    } finally {
      // SIGKILL: a process that hangs on SIGTERM would hang the suite.
      main.child.kill('SIGKILL');
      await main.exit;
      await redis.close();
      await receiver.close();
    }
  }, 120_000);

  it('stops gracefully on SIGTERM while a role is still starting: the API already serving, the worker waiting for Redis, closed unstarted when Redis comes back', async () => {
    const redisUrl = new URL(process.env.REDIS_URL!);
    const redis = await tcpProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
    const main = spawnMain({ DATABASE_URL: database.url, REDIS_URL: `redis://127.0.0.1:${redis.port}`, REDIS_PREFIX: prefix, APP_ROLES: 'api,worker', PORT: '0' });
    try {
      const port = await listeningPort(main);
      // A request whose body is still on its way holds the API's drain open after the signal.
      const request = await slowRequest(port, '/v1/invoices', JSON.stringify({ customer_id: 'x', currency: 'EUR', lines: [] }));
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect(line(main, 'worker started')).toBeUndefined();
      main.child.kill('SIGTERM');
      await waitFor(async () => line(main, 'shutting down'), 10_000, 'the shutdown to begin');
      // Redis back during the drain: the worker's start ends after the signal, and it is closed, never started.
      redis.up();
      await waitFor(async () => line(main, 'worker closed before it started'), 30_000, 'the worker to be closed');
      request.finish();
      expect(await main.exit).toBe(0);
      expect(await request.answer()).toMatch(/^HTTP\/1\.1 401 /);
      expect(line(main, 'api stopped')).toMatchObject({ role: 'api', in_flight_requests: 1 });
      expect(line(main, 'worker started')).toBeUndefined();
    } finally {
      main.child.kill('SIGKILL');
      await main.exit;
      await redis.close();
    }
  }, 60_000);

  it('exits on SIGTERM within its bounds when the database stops answering, instead of waiting for it', async () => {
    const databaseUrl = new URL(database.url);
    const postgres = await tcpProxy({ host: databaseUrl.hostname, port: Number(databaseUrl.port || 5432) });
    postgres.up();
    databaseUrl.host = `127.0.0.1:${postgres.port}`;
    // A statement bound of 2 s instead of 10: the bounds below follow it, and the test waits 4 s instead of 12.
    const main = spawnMain({ DATABASE_URL: databaseUrl.toString(), REDIS_PREFIX: prefix, APP_ROLES: 'api,mcp', PORT: '0', MCP_PORT: '0', DATABASE_STATEMENT_TIMEOUT_MS: '2000' });
    try {
      const port = await listeningPort(main);
      await waitFor(async () => main.lines().some((entry) => /agent-tool server listening/.test(String(entry.msg))), 30_000, 'both roles to listen');
      const session = await createTenantSession(api.app, { scopes: [Scope.All] });
      const finance = await createFinanceFixture(api.app, session.tenant.id);
      expect((await fetch(`http://127.0.0.1:${port}/v1/invoices`, { headers: { Authorization: session.auth } })).status).toBe(200);
      postgres.stall();
      // A create whose body is still on its way at the signal: its statements then find the database
      // silent, and it is answered 503 after the query's bound (the statement's + 2 s), which the drain outlasts.
      const create = await slowRequest(port, '/v1/invoices', JSON.stringify(finance.invoiceBody()), { Authorization: session.auth });
      // Answered after the create's headers were read on its own connection, so it is in flight.
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      main.child.kill('SIGTERM');
      await waitFor(async () => line(main, 'shutting down'), 10_000, 'the shutdown to begin');
      create.finish();
      expect(await main.exit).toBe(0);
      expect(await create.answer()).toMatch(/^HTTP\/1\.1 503 /);
      expect(line(main, 'api stopped')).toMatchObject({ role: 'api', in_flight_requests: 1, timed_out: true });
      expect(line(main, 'shut down')).toMatchObject({ signal: 'SIGTERM' });
    } finally {
      main.child.kill('SIGKILL');
      await main.exit;
      await postgres.close();
    }
  }, 60_000);

  // Before: a SIGINT after a SIGTERM started a second drain beside the first, and the process ran it out.
  it('ends at once on a second signal of either kind during the drain', async () => {
    const main = spawnMain({ DATABASE_URL: database.url, REDIS_PREFIX: prefix, APP_ROLES: 'api', PORT: '0' });
    try {
      const port = await listeningPort(main);
      // A body that never comes whole holds the drain for its bound (the statement timeout + 3 s).
      await slowRequest(port, '/v1/invoices', JSON.stringify({ customer_id: 'x' }));
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      main.child.kill('SIGTERM');
      await waitFor(async () => line(main, 'shutting down'), 10_000, 'the shutdown to begin');
      const signalled = Date.now();
      main.child.kill('SIGINT');
      expect(await main.exit).toBeNull();
      expect(main.child.signalCode).toBe('SIGINT');
      expect(Date.now() - signalled).toBeLessThan(5_000);
      expect(main.lines().filter((entry) => entry.msg === 'shutting down')).toHaveLength(1);
    } finally {
      main.child.kill('SIGKILL');
      await main.exit;
    }
  }, 60_000);

  it('lets a delivery attempt in flight finish and records it on SIGTERM: delivered once, exit 0', async () => {
    const receiver = await startReceiver(() => ({ status: 204, delayMs: 1500 }));
    const main = spawnMain({
      DATABASE_URL: database.url,
      REDIS_PREFIX: prefix,
      APP_ROLES: 'worker',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
      WEBHOOK_SWEEP_INTERVAL_MS: '500',
    });
    try {
      await waitFor(async () => line(main, 'worker started'), 60_000, 'the worker to start');
      const session = await createTenantSession(api.app, { scopes: [Scope.All] });
      const { endpoint } = await createEndpoint(api.app, { tenantId: session.tenant.id, apiKeyId: session.keyId }, { url: receiver.url('/slow') });
      await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
      await waitFor(async () => receiver.requests.length > 0, 30_000, 'the attempt to reach the receiver');

      main.child.kill('SIGTERM');
      expect(await main.exit).toBe(0);
      expect(line(main, 'delivery attempts drained')).toMatchObject({ in_flight_attempts: 1 });
      const [delivery] = await deliveriesOf(api.app, endpoint.id);
      expect(delivery).toMatchObject({ status: 'delivered', attempt: 1, last_response_status: 204 });
      expect(await api.app.get(DataSource).query(`SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE delivery_id = $1`, [delivery.id])).toEqual([{ n: 1 }]);
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await main.stop();
      await receiver.close();
    }
  }, 120_000);
});
