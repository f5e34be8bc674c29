import pg from 'pg';
import { DataSource } from 'typeorm';
import request from 'supertest';
import { ApiKeysService } from '../src/platform/auth/api-keys.service.js';
import { AUTH_ACKS_CHANNEL, AUTH_CHANGES_CHANNEL, AUTH_LISTENER_APPLICATION } from '../src/platform/auth-changes/auth-changes.js';
import { Scope } from '../src/platform/catalog/scopes.js';
import { startApi, type TestApi } from './support/api.js';
import { onOwnDatabase } from './support/deliveries.js';
import { runCli } from './support/cli.js';
import { listeningPort, type MainProcess, spawnMain } from './support/main-process.js';
import { createTenantSession } from './support/tenant-session.js';

// A revocation waits for every API process listening on its database: on the run's shared one,
// another file's stopping process, or a liveness test's listener behind a frozen proxy, was
// waited for up to 5 s.
onOwnDatabase('auth_revocation');

/**
 * API processes cache keys and companies in memory; a change made through the admin CLI must
 * still hold on the very next request at every process. Here: this test's API instance and a
 * second, already running `node dist/main.js`, both having served (and so cached) the key.
 */
describe('revocation and deactivation reach every running API process (e2e)', () => {
  let api: TestApi;
  let main: MainProcess;
  let second: string;

  beforeAll(async () => {
    api = await startApi();
    main = spawnMain({ APP_ROLES: 'api', PORT: '0' });
    second = `http://127.0.0.1:${await listeningPort(main)}`;
  }, 90_000);

  afterAll(async () => {
    await main.stop();
    await api.close();
  });

  const bothServe = async (auth: string) => {
    for (let round = 0; round < 2; round += 1) {
      expect((await request(second).get('/v1/invoices?limit=1').set('Authorization', auth)).status).toBe(200);
      expect((await api.http.get('/v1/invoices?limit=1').set('Authorization', auth)).status).toBe(200);
    }
  };

  it('refuses a key revoked through the CLI on the next request at the second process', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesRead] });
    await bothServe(session.auth);

    expect((await runCli('key:revoke', '--key', session.keyId)).code).toBe(0);
    const res = await request(second).get('/v1/invoices?limit=1').set('Authorization', session.auth);
    expect(res.status).toBe(401);
    expect(res.body.detail_key).toBe('errors.integrations.unauthenticated');
    expect((await api.http.get('/v1/invoices?limit=1').set('Authorization', session.auth)).status).toBe(401);
  });

  it('answers tenant_not_found on the next request once the company is deactivated through the CLI', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesRead] });
    await bothServe(session.auth);

    expect((await runCli('tenant:deactivate', '--tenant', session.tenant.id)).code).toBe(0);
    const res = await request(second).get('/v1/invoices?limit=1').set('Authorization', session.auth);
    expect(res.status).toBe(404);
    expect(res.body.detail_key).toBe('errors.common.tenant_not_found');
  });

  /** A listening connection named like an API process's, which reacts to each change after `delayMs`. */
  const fakeProcess = async (delayMs: number, reaction: (client: pg.Client, payload: string) => Promise<unknown>) => {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    client.on('error', () => undefined);
    await client.connect();
    await client.query(`LISTEN ${AUTH_CHANGES_CHANNEL}`);
    await client.query(`SET application_name = '${AUTH_LISTENER_APPLICATION}'`);
    const reactedAt: number[] = [];
    client.on('notification', (message) => {
      setTimeout(() => {
        reactedAt.push(Date.now());
        reaction(client, message.payload ?? '').catch(() => undefined);
      }, delayMs);
    });
    return { client, reactedAt };
  };

  it('returns from a revocation only once a slow API process has confirmed dropping the key', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesRead] });
    const slow = await fakeProcess(400, (client, payload) => client.query('SELECT pg_notify($1, $2)', [AUTH_ACKS_CHANNEL, payload]));
    try {
      await api.app.get(ApiKeysService).changeState(session.keyId, 'revoked');
      expect(slow.reactedAt.length).toBeGreaterThan(0);
    } finally {
      await slow.client.end().catch(() => undefined);
    }
  });

  it('does not wait for a process that goes away without confirming', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesRead] });
    const leaving = await fakeProcess(300, (client) => client.end());
    const started = Date.now();
    await api.app.get(ApiKeysService).changeState(session.keyId, 'revoked');
    expect(leaving.reactedAt.length).toBe(1);
    // Well inside the 5 s a silent process is waited for: its connection was seen to end.
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('keeps the first moment a key was revoked, deleted or expired when the command runs again', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesRead] });
    const keys = api.app.get(ApiKeysService);
    const moments = async () =>
      (await api.app.get(DataSource).query(`SELECT revoked_at, expires_at, deleted_at FROM api_keys WHERE id = $1`, [session.keyId]))[0] as Record<string, Date | null>;
    for (const change of ['revoked', 'expired', 'deleted'] as const) await keys.changeState(session.keyId, change);
    const first = await moments();
    for (const change of ['revoked', 'expired', 'deleted'] as const) expect(await keys.changeState(session.keyId, change)).toEqual({ id: session.keyId, state: 'deleted' });
    // Before: each command set its moment to now again, losing when the key really stopped.
    expect(await moments()).toEqual(first);
  });
});
