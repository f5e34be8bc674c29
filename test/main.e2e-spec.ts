import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import pg from 'pg';
import request from 'supertest';
import { dropDatabase } from '../src/platform/database/database.js';
import { loadSqlMigrations } from '../src/platform/database/migrations.js';

const MAIN = join(process.cwd(), 'dist/main.js');

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

/** `node dist/main.js` (built by `npm test`) with the given environment on top of the test run's. */
function start(env: Record<string, string>): Started {
  const child = spawn(process.execPath, [MAIN], { env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

async function listeningPort(started: Started): Promise<number> {
  // Generous: a cold Node start plus migrations can take long on a loaded two-core machine.
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const line = started
      .stdout()
      .split('\n')
      .filter((text) => text.startsWith('{'))
      .map((text) => JSON.parse(text) as { context?: string; port?: number })
      .find((entry) => entry.context === 'main' && typeof entry.port === 'number');
    if (line) return line.port!;
    if (started.child.exitCode !== null) throw new Error(`exited ${started.child.exitCode}: ${started.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no listening line in:\n${started.stdout()}`);
}

describe('node dist/main.js (e2e)', () => {
  it.each([
    ['PORT', 'eighty'],
    ['APP_ROLES', 'api,scheduler'],
    ['WEBHOOK_RETRY_SCHEDULE_MS', '1000,2000'],
    ['REDIS_URL', 'http://127.0.0.1:6379'],
  ])('refuses to start with %s=%s and names the variable', async (name, value) => {
    const started = start({ [name]: value });
    expect(await started.exit).toBe(1);
    expect(started.stderr()).toContain(`${name}:`);
    expect(started.stdout()).toBe('');
  });

  it('creates a missing database, applies every migration, and serves the API role on PORT', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `${url.pathname}_fresh`;
    const databaseUrl = url.toString();
    const started = start({ DATABASE_URL: databaseUrl, APP_ROLES: 'api', PORT: '0' });
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
      started.child.kill('SIGTERM');
      await started.exit;
      await dropDatabase(databaseUrl);
    }
  }, 90_000);
});
