import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { startApi, type TestApi } from './support/api.js';
import { TestResourcesModule } from './support/test-resources.module.js';

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Each command is a fresh Node process that loads the application: seconds, not milliseconds. */
const TIMEOUT_MS = 120000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Runs the built admin CLI (`node dist/cli.js`, built by `npm test`) against this run's database. */
function cli(...args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(process.cwd(), 'dist/cli.js'), ...args], {
      env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A successful command: exit 0, nothing on stderr, exactly one JSON object on stdout. */
async function ok(...args: string[]): Promise<Record<string, unknown>> {
  const result = await cli(...args);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(result.stdout.endsWith('\n')).toBe(true);
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  const printed = JSON.parse(result.stdout) as Record<string, unknown>;
  expect(printed).toBeInstanceOf(Object);
  expect(Array.isArray(printed)).toBe(false);
  return printed;
}

async function fails(args: string[], message: RegExp): Promise<void> {
  const result = await cli(...args);
  expect(result.code).not.toBe(0);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
}

describe('admin CLI (e2e, dist/cli.js)', () => {
  let api: TestApi;
  let db: DataSource;

  beforeAll(async () => {
    api = await startApi({ modules: [TestResourcesModule] });
    db = api.app.get(DataSource);
  });
  afterAll(() => api.close());

  it('creates and deactivates a company', async () => {
    const created = await ok('tenant:create', '--name', 'Acme Logistics GmbH');
    expect(Object.keys(created).sort()).toEqual(['id', 'name', 'slug']);
    expect(created).toMatchObject({ id: expect.stringMatching(UUID), name: 'Acme Logistics GmbH', slug: expect.stringMatching(/^acme-logistics-gmbh-/) });
    const [row] = await db.query('SELECT currencies, active FROM tenants WHERE id = $1', [created.id]);
    expect(row).toEqual({ currencies: ['EUR'], active: true });

    const slug = `cli-${Date.now().toString(36)}`;
    const named = await ok('tenant:create', '--name', 'Beta', '--slug', slug, '--currencies', 'EUR,USD');
    expect(named).toEqual({ id: expect.stringMatching(UUID), slug, name: 'Beta' });
    expect((await db.query('SELECT currencies FROM tenants WHERE id = $1', [named.id]))[0].currencies).toEqual(['EUR', 'USD']);

    expect(await ok('tenant:deactivate', '--tenant', String(created.id))).toEqual({ id: created.id, active: false });
    expect((await db.query('SELECT active FROM tenants WHERE id = $1', [created.id]))[0].active).toBe(false);
  }, TIMEOUT_MS);

  it('creates users and sets their permissions, an empty list meaning none', async () => {
    const tenant = await ok('tenant:create', '--name', 'People Co');
    const user = await ok('user:create', '--tenant', String(tenant.id), '--email', 'ops@people.example', '--permissions', 'fin.invoices:read,hr.employees:read');
    expect(user).toEqual({ id: expect.stringMatching(UUID) });
    expect((await db.query('SELECT permissions, tenant_id FROM users WHERE id = $1', [user.id]))[0]).toEqual({
      permissions: ['fin.invoices:read', 'hr.employees:read'],
      tenant_id: tenant.id,
    });

    expect(await ok('user:set-permissions', '--user', String(user.id), '--permissions', 'fm.vehicles:read')).toEqual({ id: user.id, permissions: ['fm.vehicles:read'] });
    expect(await ok('user:set-permissions', '--user', String(user.id), '--permissions', '')).toEqual({ id: user.id, permissions: [] });
    expect((await db.query('SELECT permissions FROM users WHERE id = $1', [user.id]))[0].permissions).toEqual([]);
  }, TIMEOUT_MS);

  it('creates keys that work against the API until revoked, expired or deleted', async () => {
    const tenant = await ok('tenant:create', '--name', 'Keys Co');
    const user = await ok('user:create', '--tenant', String(tenant.id), '--email', 'keys@keys.example');
    const created = await ok(
      'key:create',
      '--tenant',
      String(tenant.id),
      '--scopes',
      'int:fin.invoices:read,int:webhooks:manage',
      '--expires-at',
      '2031-02-03T04:05:06Z',
      '--user',
      String(user.id),
      '--name',
      'CI key',
    );
    expect(Object.keys(created).sort()).toEqual(['id', 'key']);
    expect(created.id).toMatch(UUID);
    expect(created.key).toMatch(/^oh_live_[a-z0-9]{12}_[A-Za-z0-9]{43}$/);
    const [row] = await db.query('SELECT scopes, expires_at, created_by_user_id, name FROM api_keys WHERE id = $1', [created.id]);
    expect(row).toEqual({
      scopes: ['int:fin.invoices:read', 'int:webhooks:manage'],
      expires_at: new Date('2031-02-03T04:05:06Z'),
      created_by_user_id: user.id,
      name: 'CI key',
    });

    const auth = `Bearer ${String(created.key)}`;
    expect((await api.http.get('/v1/test_events').set('Authorization', auth)).status).toBe(200);
    expect(await ok('key:revoke', '--key', String(created.id))).toEqual({ id: created.id, state: 'revoked' });
    const refused = await api.http.get('/v1/test_events').set('Authorization', auth);
    expect(refused.status).toBe(401);
    expect(refused.body.detail_key).toBe('errors.integrations.unauthenticated');

    for (const [command, state] of [
      ['key:expire', 'expired'],
      ['key:delete', 'deleted'],
    ] as const) {
      const key = await ok('key:create', '--tenant', String(tenant.id), '--scopes', 'int:fin.invoices:read');
      expect((await api.http.get('/v1/test_events').set('Authorization', `Bearer ${String(key.key)}`)).status).toBe(200);
      expect(await ok(command, '--key', String(key.id))).toEqual({ id: key.id, state });
      expect((await api.http.get('/v1/test_events').set('Authorization', `Bearer ${String(key.key)}`)).status).toBe(401);
    }
  }, TIMEOUT_MS);

  it('fails with a message on stderr, nothing on stdout and a non-zero exit', async () => {
    const tenant = await ok('tenant:create', '--name', 'Failures Co');
    const id = String(tenant.id);
    await Promise.all([
      fails(['key:create', '--tenant', id, '--scopes', 'int:fin.invoices:read,int:nope'], /unknown scopes: int:nope/),
      fails(['key:create', '--tenant', id], /--scopes/),
      fails(['key:create', '--tenant', id, '--scopes', 'int:fin.invoices:read', '--expires-at', 'tomorrow'], /RFC 3339/),
      fails(['tenant:explode', '--tenant', id], /unknown command/),
      fails([], /no command/),
    ]);
    await Promise.all([
      fails(['user:create', '--tenant', id, '--email', 'x@example.test', '--permissions', 'fin.invoices:delete'], /Unknown permissions/),
      fails(['tenant:deactivate', '--tenant', '00000000-0000-4000-8000-000000000000'], /not found/),
      fails(['key:revoke', '--key', '00000000-0000-4000-8000-000000000000'], /not found/),
    ]);
    expect((await db.query('SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = $1', [id]))[0].n).toBe(0);
  }, TIMEOUT_MS);
});
