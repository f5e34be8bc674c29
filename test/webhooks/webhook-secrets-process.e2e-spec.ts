import request from 'supertest';
import { Scope } from '../../src/platform/catalog/scopes.js';
import { startApi, type TestApi } from '../support/api.js';
import { listeningPort, type MainProcess, spawnMain } from '../support/main-process.js';
import { createTenantSession } from '../support/tenant-session.js';
import { waitFor } from '../support/wait-for.js';

/** Signing secrets and SECRETS_KEY as operators meet them: `node dist/main.js` and its output. */
describe('webhook signing secrets in the running service (e2e, dist/main.js)', () => {
  let api: TestApi;
  let main: MainProcess;
  let base: string;

  beforeAll(async () => {
    api = await startApi();
    main = spawnMain({
      APP_ROLES: 'api',
      PORT: '0',
      LOG_LEVEL: 'trace',
      PUBLIC_BASE_URL: 'https://api.test.local',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    });
    base = `http://127.0.0.1:${await listeningPort(main)}`;
  }, 90_000);

  afterAll(async () => {
    await main.stop();
    await api.close();
  });

  it('never writes a signing secret to the logs, at the most verbose level', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.WebhooksManage, Scope.FinInvoicesRead] });
    const http = () => request(base);
    const body = { name: 'local', url: 'http://localhost:9/hook', event_types: ['fin.invoice.created'] };
    const created = await http().post('/v1/webhook_endpoints').set('Authorization', session.auth).set('Idempotency-Key', 'log-check').send(body);
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const rotated = await http().post(`/v1/webhook_endpoints/${id}/rotate_secret`).set('Authorization', session.auth);
    expect(rotated.status).toBe(200);
    const replayed = await http().post('/v1/webhook_endpoints').set('Authorization', session.auth).set('Idempotency-Key', 'log-check').send(body);
    expect(replayed.headers['idempotency-replayed']).toBe('true');
    await http().get(`/v1/webhook_endpoints/${id}`).set('Authorization', session.auth).expect(200);
    await http().get('/v1/webhook_endpoints').set('Authorization', session.auth).expect(200);

    // Every request was logged (request lines name the route pattern, never the path or id).
    await waitFor(
      async () => main.lines().filter((line) => line.msg === 'request completed' && String(line.route).startsWith('/v1/webhook_endpoints')).length >= 5,
      10_000,
      'the five request lines',
    );
    const output = main.stdout() + main.stderr();
    for (const secret of [created.body.secret as string, rotated.body.secret as string]) {
      expect(secret).toMatch(/^whsec_/);
      expect(output).not.toContain(secret.slice('whsec_'.length, 30));
    }
    expect(output).not.toContain('whsec_');
  });

  it('warns at start that SECRETS_KEY is missing outside production', () => {
    const warning = main.lines().find((line) => typeof line.msg === 'string' && line.msg.includes('SECRETS_KEY is not set'));
    expect(warning).toMatchObject({ level: 40 });
  });

  it('warns once at start that the development switches of webhook URL safety are set', () => {
    const warnings = main.lines().filter((line) => typeof line.msg === 'string' && line.msg.startsWith('Webhook URL safety is relaxed'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 40, msg: expect.stringMatching(/WEBHOOK_ALLOW_HTTP=true.*WEBHOOK_ALLOWED_CIDRS=127\.0\.0\.0\/8/) });
  });

  it('refuses to start with NODE_ENV=production and no SECRETS_KEY, naming the variable', async () => {
    const production = spawnMain({ APP_ROLES: 'api', PORT: '0', NODE_ENV: 'production', SECRETS_KEY: '' });
    expect(await production.exit).toBe(1);
    expect(production.stderr()).toMatch(/SECRETS_KEY: required when NODE_ENV=production/);
  }, 60_000);
});
