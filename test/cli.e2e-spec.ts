import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { startApi, type TestApi } from './support/api.js';
import { messageOf } from '../src/cli/cli-main.js';
import { runCli } from './support/cli.js';
import { TestResourcesModule } from './support/test-resources.module.js';

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A command in a fresh Node process loads the application: seconds, not milliseconds. */
const TIMEOUT_MS = 120000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Runs the built admin CLI (`node dist/cli.js`, built by `npm test`) as a process against this run's database. */
function cli(...args: string[]): Promise<CliResult> {
  return cliWith({}, ...args);
}

/**
 * Runs a command in this process, on the path `node dist/cli.js` takes (cliMain, its output
 * and exit code) but without starting Node and loading the application each time: most tests
 * here are about what a command does. The process itself is tested by those that use `cli`.
 */
async function inProcess(...args: string[]): Promise<CliResult> {
  const { code, stdout, stderr } = await runCli(...args);
  return { code, stdout, stderr };
}

function cliWith(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(process.cwd(), 'dist/cli.js'), ...args], {
      env: { ...process.env, DATABASE_URL: process.env.DATABASE_URL, ...env },
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
  return printed(await inProcess(...args));
}

function printed(result: CliResult): Record<string, unknown> {
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(result.stdout.endsWith('\n')).toBe(true);
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  const printed = JSON.parse(result.stdout) as Record<string, unknown>;
  expect(printed).toBeInstanceOf(Object);
  expect(Array.isArray(printed)).toBe(false);
  return printed;
}

async function fails(args: string[], message: RegExp): Promise<void> {
  const result = await inProcess(...args);
  expect(result.code).not.toBe(0);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(message);
}

/** Independent commands run side by side. */
describe('admin CLI (e2e, dist/cli.js)', () => {
  let api: TestApi;
  let db: DataSource;
  let acme: Record<string, unknown>;
  let beta: Record<string, unknown>;
  let slug: string;

  beforeAll(async () => {
    api = await startApi({ modules: [TestResourcesModule] });
    db = api.app.get(DataSource);
    slug = `cli-${Date.now().toString(36)}`;
    // As processes: what a caller of `node dist/cli.js` gets, exit code and output.
    [acme, beta] = (
      await Promise.all([cli('tenant:create', '--name', 'Acme Logistics GmbH'), cli('tenant:create', '--name', 'Beta', '--slug', slug, '--currencies', 'EUR,USD')])
    ).map(printed);
  }, TIMEOUT_MS);
  afterAll(() => api.close());

  it('creates companies: {id, slug, name}', async () => {
    expect(Object.keys(acme).sort()).toEqual(['id', 'name', 'slug']);
    expect(acme).toMatchObject({ id: expect.stringMatching(UUID), name: 'Acme Logistics GmbH', slug: expect.stringMatching(/^acme-logistics-gmbh(-[0-9a-f]{6})?$/) });
    expect(beta).toEqual({ id: expect.stringMatching(UUID), slug, name: 'Beta' });
    const rows = await db.query('SELECT id, currencies, active FROM tenants WHERE id = ANY($1) ORDER BY name', [[acme.id, beta.id]]);
    expect(rows).toEqual([
      { id: acme.id, currencies: ['EUR'], active: true },
      { id: beta.id, currencies: ['EUR', 'USD'], active: true },
    ]);
    // 200 characters as PostgreSQL counts them: 200 emoji are 400 UTF-16 units.
    expect(await ok('tenant:create', '--name', '😀'.repeat(200))).toMatchObject({ name: '😀'.repeat(200) });
  });

  it('creates users and sets their permissions, an empty list meaning none', async () => {
    const user = await ok('user:create', '--tenant', String(acme.id), '--email', 'ops@acme.example', '--permissions', 'fin.invoices:read,hr.employees:read');
    expect(user).toEqual({ id: expect.stringMatching(UUID) });
    expect((await db.query('SELECT permissions, tenant_id FROM users WHERE id = $1', [user.id]))[0]).toEqual({
      permissions: ['fin.invoices:read', 'hr.employees:read'],
      tenant_id: acme.id,
    });

    expect(await ok('user:set-permissions', '--user', String(user.id), '--permissions', 'fm.vehicles:read')).toEqual({ id: user.id, permissions: ['fm.vehicles:read'] });
    expect(await ok('user:set-permissions', '--user', String(user.id), '--permissions', '')).toEqual({ id: user.id, permissions: [] });
    expect((await db.query('SELECT permissions FROM users WHERE id = $1', [user.id]))[0].permissions).toEqual([]);
  }, TIMEOUT_MS);

  it('creates keys that work against the API until revoked, expired or deleted', async () => {
    const user = (await db.query(`INSERT INTO users (tenant_id, email) VALUES ($1, 'keys@beta.example') RETURNING id`, [beta.id]))[0];
    const [full, toExpire, toDelete] = await Promise.all([
      ok(
        'key:create',
        '--tenant',
        String(beta.id),
        '--scopes',
        'int:fin.invoices:read,int:webhooks:manage',
        '--expires-at',
        '2099-02-03T04:05:06Z',
        '--user',
        String(user.id),
        '--name',
        'CI key',
      ),
      ok('key:create', '--tenant', String(beta.id), '--scopes', 'int:fin.invoices:read'),
      ok('key:create', '--tenant', String(beta.id), '--scopes', 'int:fin.invoices:write'),
    ]);
    for (const key of [full, toExpire, toDelete]) {
      expect(Object.keys(key).sort()).toEqual(['id', 'key']);
      expect(key.id).toMatch(UUID);
      expect(key.key).toMatch(/^oh_live_[a-z0-9]{12}_[A-Za-z0-9]{43}$/);
    }
    expect((await db.query('SELECT scopes, expires_at, created_by_user_id, name FROM api_keys WHERE id = $1', [full.id]))[0]).toEqual({
      scopes: ['int:fin.invoices:read', 'int:webhooks:manage'],
      expires_at: new Date('2099-02-03T04:05:06Z'),
      created_by_user_id: user.id,
      name: 'CI key',
    });
    expect((await db.query('SELECT expires_at, created_by_user_id, name FROM api_keys WHERE id = $1', [toExpire.id]))[0]).toEqual({
      expires_at: null,
      created_by_user_id: null,
      name: null,
    });

    const list = (key: Record<string, unknown>) => api.http.get('/v1/test_events').set('Authorization', `Bearer ${String(key.key)}`);
    for (const key of [full, toExpire, toDelete]) expect((await list(key)).status).toBe(200);
    const states = await Promise.all([
      ok('key:revoke', '--key', String(full.id)),
      ok('key:expire', '--key', String(toExpire.id)),
      ok('key:delete', '--key', String(toDelete.id)),
    ]);
    expect(states).toEqual([
      { id: full.id, state: 'revoked' },
      { id: toExpire.id, state: 'expired' },
      { id: toDelete.id, state: 'deleted' },
    ]);
    for (const key of [full, toExpire, toDelete]) {
      const refused = await list(key);
      expect(refused.status).toBe(401);
      expect(refused.body.detail_key).toBe('errors.integrations.unauthenticated');
    }
  }, TIMEOUT_MS);

  it('deactivates a company: {id, active:false}, and issues it no more keys, which would be refused from their first request, while its data can still be recorded', async () => {
    const other = (await db.query(`INSERT INTO tenants (slug, name) VALUES ($1, 'Gamma') RETURNING id`, [`gamma-${slug}`]))[0];
    expect(await ok('tenant:deactivate', '--tenant', String(other.id))).toEqual({ id: other.id, active: false });
    expect((await db.query('SELECT active FROM tenants WHERE id = $1', [other.id]))[0].active).toBe(false);
    await fails(['key:create', '--tenant', String(other.id), '--scopes', 'int:fin.invoices:read'], /not found or not active/);
    expect((await db.query('SELECT count(*)::int AS keys FROM api_keys WHERE tenant_id = $1', [other.id]))[0].keys).toBe(0);
    // Its books can still be completed (docs/choices.md, "A deactivated company in the admin CLI").
    const customer = (await ok('customer:create', '--tenant', String(other.id), '--name', 'Late payer')) as { id: string };
    expect((await db.query('SELECT tenant_id FROM customers WHERE id = $1', [customer.id]))[0].tenant_id).toBe(other.id);
  }, TIMEOUT_MS);

  it('issues a key whose expiry is past, refused from its first request; refuses currencies that are not ISO 4217 codes in use', async () => {
    const [expired] = await Promise.all([
      ok('key:create', '--tenant', String(beta.id), '--scopes', 'int:fin.invoices:read', '--expires-at', '2000-01-01T00:00:00Z'),
      fails(['tenant:create', '--name', 'Odd Money', '--currencies', 'EUR,XYZ,HRK'], /'--currencies <codes>' argument 'EUR,XYZ,HRK' is invalid\. not ISO 4217 codes in use \(upper case\): XYZ,HRK/),
    ]);
    expect((await db.query('SELECT expires_at FROM api_keys WHERE id = $1', [expired.id]))[0].expires_at).toEqual(new Date('2000-01-01T00:00:00Z'));
    const refused = await api.http.get('/v1/invoices').set('Authorization', `Bearer ${String(expired.key)}`);
    expect(refused.status).toBe(401);
    expect(refused.body.detail_key).toBe('errors.integrations.unauthenticated');
    // Before anything runs: no database is needed to tell.
    const offline = await cliWith({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere' }, 'tenant:create', '--name', 'Odd Money', '--currencies', 'eur');
    expect(offline).toMatchObject({ code: 1, stdout: '', stderr: expect.stringMatching(/not ISO 4217 codes in use \(upper case\): eur/) });
    expect((await db.query(`SELECT count(*)::int AS tenants FROM tenants WHERE name = 'Odd Money'`))[0].tenants).toBe(0);
    expect(await ok('tenant:create', '--name', 'Even Money', '--currencies', 'CHF,JPY,VED')).toMatchObject({ name: 'Even Money' });
  }, TIMEOUT_MS);

  it('fails with a message on stderr, nothing on stdout and a non-zero exit', async () => {
    const id = String(acme.id);
    const missing = '00000000-0000-4000-8000-000000000000';
    await Promise.all([
      fails(['key:create', '--tenant', id, '--scopes', 'int:fin.invoices:read,int:nope'], /unknown scopes: int:nope/),
      fails(['key:create', '--tenant', id], /--scopes/),
      // Named by its flag, as every malformed value is.
      fails(['key:create', '--tenant', id, '--scopes', 'int:fin.invoices:read', '--expires-at', 'tomorrow'], /option '--expires-at <rfc3339>' argument 'tomorrow' is invalid\. not an RFC 3339 timestamp/),
      fails(['tenant:explode', '--tenant', id], /unknown command/),
    ]);
    await Promise.all([
      fails([], /no command/),
      fails(['user:create', '--tenant', id, '--email', 'x@example.test', '--permissions', 'fin.invoices:delete'], /Unknown permissions/),
      fails(['tenant:deactivate', '--tenant', missing], /not found/),
      fails(['key:revoke', '--key', missing], /not found/),
    ]);
    // A malformed id or address is named by the flag, never a database error.
    await Promise.all([
      fails(['tenant:deactivate', '--tenant', 'acme'], /not an id: acme/),
      fails(['key:revoke', '--key', 'oh_live_x'], /not an id: oh_live_x/),
      fails(['user:create', '--tenant', id, '--email', 'not-an-address'], /not an e-mail address: not-an-address/),
    ]);
    // Nor is an unknown company or person, another company's person, or an address taken in any case.
    const stranger = (await db.query(`INSERT INTO users (tenant_id, email) VALUES ($1, 'stranger@beta.example') RETURNING id`, [beta.id]))[0].id as string;
    await ok('user:create', '--tenant', id, '--email', 'Taken@acme.example');
    await Promise.all([
      fails(['key:create', '--tenant', missing, '--scopes', 'int:fin.invoices:read'], /Tenant 00000000-0000-4000-8000-000000000000 not found/),
      fails(['key:create', '--tenant', id, '--scopes', 'int:fin.invoices:read', '--user', missing], /User 00000000-0000-4000-8000-000000000000 not found in tenant/),
      fails(['key:create', '--tenant', id, '--scopes', 'int:fin.invoices:read', '--user', stranger], /not found in tenant/),
      fails(['user:create', '--tenant', missing, '--email', 'x@example.test'], /Tenant 00000000-0000-4000-8000-000000000000 not found/),
      fails(['user:create', '--tenant', id, '--email', 'taken@ACME.example'], /already has a person with the e-mail address taken@ACME\.example/),
      fails(['key:create', '--tenant', id, '--scopes', 'int:fin.invoices:read', '--name', 'k'.repeat(201)], /name must be 1-200 characters, not blank/),
      fails(['key:create', '--tenant', id, '--scopes', 'int:fin.invoices:read', '--name', ' '], /name must be 1-200 characters, not blank/),
    ]);
    expect((await db.query(`SELECT count(*)::int AS n FROM users WHERE tenant_id = $1 AND lower(email) = 'taken@acme.example'`, [id]))[0].n).toBe(1);
    expect((await db.query('SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = $1', [id]))[0].n).toBe(0);
  }, TIMEOUT_MS);

  it('names an unknown command or flag and suggests the closest one, exiting 1', async () => {
    // As processes: what a caller of `node dist/cli.js` gets on failure.
    const [command, asking, option] = await Promise.all([
      cli('tenant:crate', '--name', 'X'),
      cli('tenant:crate', '--name', 'X', '--help'),
      cli('tenant:create', '--name', 'X', '--slugg', 'x'),
    ]);
    expect(command).toEqual({ code: 1, stdout: '', stderr: "unknown command 'tenant:crate' (Did you mean tenant:create?)\n" });
    // Before: the overview, exit 0, as if the command existed.
    expect(asking).toEqual(command);
    expect(option).toEqual({ code: 1, stdout: '', stderr: "unknown option '--slugg' (Did you mean --slug?)\n" });
  }, TIMEOUT_MS);

  it('refuses what Commander would take silently: help for no command, a flag without its value, a flag given twice', async () => {
    // Companies the refused commands below would have made (other files make theirs meanwhile).
    const made = async () => Number((await db.query(`SELECT count(*) AS n FROM tenants WHERE name = ANY($1)`, [['--slug', 'A', 'B']]))[0].n);
    const before = await made();
    const refused = async (argv: string[]) => {
      const run = await runCli(...argv);
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: '' });
      return run.stderr;
    };
    expect(await refused(['help', 'bogus'])).toBe("unknown command 'bogus'; see --help\n");
    // Before: a company named "--slug".
    expect(await refused(['tenant:create', '--name', '--slug', 'x'])).toBe('flag --name needs a value (it is followed by --slug)\n');
    expect(await refused(['tenant:create', '--name'])).toBe('flag --name needs a value\n');
    expect(await refused(['tenant:create', '--name', 'A', '--name', 'B'])).toBe('flag --name is given twice; give it once\n');
    expect(await refused(['key:revoke', '--key', String(acme.id), '--key=00000000-0000-4000-8000-000000000000'])).toBe('flag --key is given twice; give it once\n');
    // A NUL or an escape sequence echoed from the input is escaped: the terminal shows it, it does not act on it.
    expect(await refused(['event:emit', '--tenant', String(acme.id), '--type', 'fm.vehicle.created', '--data', '{"x\\u0000":1}'])).toMatch(/^option .* x\\u0000 contains the character U\+0000.*\n$/);
    expect(await refused(['key:create', '--tenant', String(acme.id), '--scopes', 'x\u001b[2Jy'])).toBe('unknown scopes: x\\u001b[2Jy\n');
    expect(await made()).toBe(before);
    // Any other value is taken as given, one that starts with `--` included; --help may come twice.
    expect((await runCli('tenant:create', '--name', '--odd name')).json).toMatchObject({ name: '--odd name' });
    expect((await runCli('tenant:create', '--name=--odder')).json).toMatchObject({ name: '--odder' });
    const help = await inProcess('tenant:create', '--help', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: cli tenant:create/);
  });

  it('exits 1 with the reason when the application cannot start, its connections made so far closed: it hung for ever on "too many clients"', async () => {
    // A PostgreSQL in front of the real one that lets two connections through (the migration's,
    // the pool's first) and refuses the next ones as a full server does.
    const target = new URL(process.env.DATABASE_URL!);
    let accepted = 0;
    const full = createServer((socket) => {
      socket.on('error', () => undefined);
      if (++accepted <= 2) {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        upstream.on('error', () => socket.destroy());
        socket.on('close', () => upstream.destroy());
        upstream.on('close', () => socket.destroy());
        socket.pipe(upstream).pipe(socket);
        return;
      }
      socket.once('data', () => {
        const fields = Buffer.from('SFATAL\0VFATAL\0C53300\0Msorry, too many clients already\0\0', 'latin1');
        const length = Buffer.alloc(4);
        length.writeInt32BE(fields.length + 4);
        socket.end(Buffer.concat([Buffer.from('E'), length, fields]));
      });
    });
    await new Promise<void>((resolve) => full.listen(0, '127.0.0.1', resolve));
    try {
      const url = new URL(process.env.DATABASE_URL!);
      url.host = `127.0.0.1:${(full.address() as AddressInfo).port}`;
      const child = spawn(process.execPath, [join(process.cwd(), 'dist/cli.js'), 'key:create', '--tenant', '00000000-0000-4000-8000-000000000000', '--scopes', '*'], {
        env: { ...process.env, DATABASE_URL: url.toString() },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const [code] = (await once(child, 'close')) as [number];
      expect({ code, stderr }).toEqual({ code: 1, stderr: expect.stringMatching(/too many clients/) });
    } finally {
      full.close();
    }
  }, TIMEOUT_MS);

  it("says a command's insert for a company id no company has as an unknown company, not as PostgreSQL's foreign-key error", async () => {
    // A feature's command that writes before it checks the company (a review's new command did).
    const unknown = '00000000-0000-4000-8000-000000000000';
    const failed = await db.query(`INSERT INTO customers (tenant_id, name) VALUES ($1, 'x')`, [unknown]).then(() => undefined, (error: Error) => error);
    expect(failed?.message).toMatch(/violates foreign key constraint/);
    expect(messageOf(failed)).toBe(`Tenant ${unknown} not found`);
    expect(messageOf(new Error('other'))).toBe('other');
  });

  it('keeps its exit code and prints no stack trace when the reader closes stdout early', async () => {
    const child = spawn(process.execPath, [join(process.cwd(), 'dist/cli.js'), 'tenant:create', '--name', 'Closed Pipe'], { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const [code] = (await once(child, 'close')) as [number];
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect((await db.query(`SELECT count(*)::int AS n FROM tenants WHERE name = 'Closed Pipe'`))[0].n).toBe(1);
  }, TIMEOUT_MS);

  it('prints help on stdout with exit 0: every command with a description and its flags, and each command\'s own', async () => {
    // The overview as a process; the same help by other spellings on cliMain, the path it takes.
    const [overview, helpCommand, one] = await Promise.all([cli('--help'), inProcess('help'), inProcess('seed:demo', '--help')]);
    for (const result of [overview, helpCommand, one]) expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(helpCommand.stdout).toBe(overview.stdout);
    expect(overview.stdout).not.toContain('outputHelp');
    const listed = overview.stdout.slice(overview.stdout.indexOf('Commands:')).split('\n').filter((line) => /^  [a-z]/.test(line));
    const commands = listed.map((line) => line.trim().split(' ')[0]).filter((name) => name !== 'help');
    expect(commands).toEqual(expect.arrayContaining(['tenant:create', 'key:create', 'event:emit', 'invoice:issue', 'webhook:grant-pii', 'mcp-token:create', 'seed:demo', 'secrets:reseal']));
    expect(commands).toHaveLength(21);
    for (const line of listed) expect(line.trim()).toMatch(/^\S+( .*)?\s{2,}\S/);
    expect(overview.stdout).toMatch(/tenant:create --name <name> \[--slug <slug>\] \[--currencies <codes>\]\s+create a company/);
    expect(one.stdout).toMatch(/Usage: cli seed:demo \[options\]/);
    expect(one.stdout).toContain('--records');
  }, TIMEOUT_MS);
});
