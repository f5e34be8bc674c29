import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import pg from 'pg';
import request from 'supertest';
import { dropDatabase } from '../src/platform/database/database.js';
import { loadSqlMigrations } from '../src/platform/database/migrations.js';
import { freePort } from './support/free-port.js';
import { listeningPort, spawnMain } from './support/main-process.js';
import { waitFor } from './support/wait-for.js';

describe('node dist/main.js (e2e)', () => {
  it.each([
    ['PORT', 'eighty'],
    ['APP_ROLES', 'api,scheduler'],
    ['WEBHOOK_RETRY_SCHEDULE_MS', '1000,2000'],
    ['REDIS_URL', 'http://127.0.0.1:6379'],
  ])('refuses to start with %s=%s and names the variable', async (name, value) => {
    const started = spawnMain({ [name]: value });
    expect(await started.exit).toBe(1);
    expect(started.stderr()).toContain(`${name}:`);
    expect(started.stdout()).toBe('');
  });

  it('exits 1 naming DATABASE_URL and the server, never its password, when PostgreSQL cannot be reached', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.username = 'someone';
    url.password = 'hunter2-secret';
    url.port = '1';
    const started = spawnMain({ DATABASE_URL: url.toString() });
    expect(await started.exit).toBe(1);
    expect(started.stderr()).toContain(`start failed: cannot connect to PostgreSQL at ${url.hostname}:1 (DATABASE_URL): connect ECONNREFUSED`);
    expect(started.stderr() + started.stdout()).not.toContain('hunter2-secret');
  });

  it('exits 1 when PostgreSQL accepts the connection but never answers, instead of hanging', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket.on('error', () => undefined))).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      const url = new URL(process.env.DATABASE_URL!);
      url.host = `127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const started = spawnMain({ DATABASE_URL: url.toString() });
      expect(await started.exit).toBe(1);
      expect(started.stderr()).toContain('start failed: cannot connect to PostgreSQL at 127.0.0.1:');
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 30_000);

  it("exits 1 with its reason, naming the variable, when the agent-tool server's port is taken, as the REST API's does", async () => {
    const taken = createServer().listen(0);
    await once(taken, 'listening');
    try {
      const port = (taken.address() as AddressInfo).port;
      const started = spawnMain({ APP_ROLES: 'mcp', MCP_PORT: String(port) });
      expect(await started.exit).toBe(1);
      // Before: `listen EADDRINUSE: address already in use :::<port>`, which said not which setting it was.
      expect(started.stderr()).toMatch(new RegExp(`^start failed: MCP_PORT=${port}: the port is already in use$`, 'm'));
      expect(started.stderr()).not.toContain("Unhandled 'error' event");
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 60_000);

  it('serves metrics on METRICS_PORT for the mcp role alone, as for the others', async () => {
    const started = spawnMain({ APP_ROLES: 'mcp', MCP_PORT: '0', METRICS_PORT: '0' });
    try {
      const port = await waitFor(async () => started.lines().find((line) => typeof line.metrics_port === 'number')?.metrics_port as number | undefined, 60_000, 'the metrics line');
      // Served from before the role starts; the role's own metrics join once it has.
      await waitFor(async () => started.lines().some((line) => /agent-tool server listening/.test(String(line.msg))), 60_000, 'the agent-tool server');
      const scraped = await request(`http://127.0.0.1:${port}`).get('/metrics');
      expect(scraped.status).toBe(200);
      expect(scraped.text).toMatch(/^# TYPE mcp_tool_calls_total counter$/m);
    } finally {
      await started.stop();
    }
  }, 90_000);

  it('serves metrics on METRICS_PORT while a worker waits for Redis at its start', async () => {
    const closed = await freePort();
    const started = spawnMain({ APP_ROLES: 'worker', METRICS_PORT: '0', REDIS_URL: `redis://127.0.0.1:${closed}` });
    try {
      const port = await waitFor(async () => started.lines().find((line) => typeof line.metrics_port === 'number')?.metrics_port as number | undefined, 60_000, 'the metrics line');
      const scraped = await request(`http://127.0.0.1:${port}`).get('/metrics');
      expect(scraped.status).toBe(200);
      expect(scraped.text).toMatch(/^# TYPE process_cpu_user_seconds_total counter$/m);
      // Before: nothing listened on METRICS_PORT until every role had started, here never.
      expect(started.lines().some((line) => line.msg === 'worker started')).toBe(false);
    } finally {
      await started.stop();
    }
  }, 90_000);

  it('creates a missing database, applies every migration, and serves the API role on PORT', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `${url.pathname}_fresh`;
    const databaseUrl = url.toString();
    const started = spawnMain({ DATABASE_URL: databaseUrl, APP_ROLES: 'api', PORT: '0' });
    try {
      const port = await listeningPort(started);
      const res = await request(`http://127.0.0.1:${port}`).get('/v1/openapi.json');
      expect(res.status).toBe(200);
      expect(res.body.openapi).toBe('3.1.0');

      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        const { rows } = await client.query<{ name: string }>('SELECT name FROM migrations ORDER BY id');
        expect(rows.map((row) => row.name)).toEqual(loadSqlMigrations().map((migration) => new migration().name));
      } finally {
        await client.end();
      }
    } finally {
      await started.stop();
      await dropDatabase(databaseUrl);
    }
  }, 90_000);
});
