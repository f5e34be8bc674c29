import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/platform/config/app-config.js';
import { SecretsCipher } from '../src/platform/crypto/secrets-cipher.js';
import { runCli } from './support/cli.js';
import { isolatedDatabase, onOwnDatabase } from './support/deliveries.js';
import { listeningPort, spawnMain, spawnNode } from './support/main-process.js';
import { waitFor } from './support/wait-for.js';

// Its development key and sealed secrets are the database's: no other file's may be seen or changed.
onOwnDatabase('secrets_key');

/**
 * A company and its key made by a CLI command on cliMain, the path `node dist/cli.js` takes,
 * on the database at `url`: what is tested here runs as processes, the setup need not.
 */
async function created(url: string, ...argv: string[]): Promise<Record<string, any>> {
  const shared = process.env.DATABASE_URL;
  process.env.DATABASE_URL = url;
  try {
    const run = await runCli(...argv);
    expect([run.code, run.stderr]).toEqual([0, '']);
    return run.json;
  } finally {
    process.env.DATABASE_URL = shared;
  }
}

/** Setting SECRETS_KEY, as the start-up warning says to, or rotating it, keeps what was sealed before readable. */
describe('SecretsCipher across a change of SECRETS_KEY (e2e, PostgreSQL)', () => {
  let database: { url: string };
  let db: DataSource;
  const newKey = () => randomBytes(32).toString('base64');
  const cipher = async (env: Record<string, string>) => {
    const made = new SecretsCipher(loadConfig({ DATABASE_URL: database.url, ...env }), db);
    await made.onModuleInit();
    return made;
  };

  beforeAll(async () => {
    database = { url: process.env.DATABASE_URL! };
    db = await new DataSource({ type: 'postgres', url: database.url }).initialize();
  });
  afterAll(() => db?.destroy());

  it('secrets:reseal seals every stored secret again under SECRETS_KEY, then drops the development key; what follows needs neither', async () => {
    const cli = async (env: Record<string, string>, ...argv: string[]) => {
      const run = spawnNode(['dist/cli.js', ...argv], { DATABASE_URL: database.url, ...env });
      expect([await run.exit, run.stderr()]).toEqual([0, '']);
      return JSON.parse(run.stdout()) as Record<string, any>;
    };
    const development = await cipher({});
    const tenant = await created(database.url, 'tenant:create', '--name', 'Reseal Ltd');
    const key = await created(database.url, 'key:create', '--tenant', tenant.id, '--scopes', 'int:webhooks:manage');
    const [{ id }] = await db.query(
      `INSERT INTO webhook_endpoints (tenant_id, api_key_id, name, url, event_types, status, pii_enabled, secret_ciphertext, previous_secret_ciphertext, previous_secret_expires_at)
       VALUES ($1, $2, 'before SECRETS_KEY', 'https://hooks.example/in', '{fin.invoice.created}', 'active', false, $3, $4, now() + interval '1 day') RETURNING id`,
      [tenant.id, key.id, development.seal('whsec_current'), development.seal('whsec_previous')],
    );

    const secretsKey = newKey();
    expect(await cli({ SECRETS_KEY: secretsKey }, 'secrets:reseal')).toEqual({ resealed: { idempotency_keys: 0, webhook_endpoints: 1 }, development_key_deleted: true });
    expect(await db.query(`SELECT 1 FROM platform_settings WHERE name = 'development_secrets_key'`)).toEqual([]);
    // Before: only rotating every endpoint's secret took them off the development key, which stayed beside them.
    const alone = await cipher({ SECRETS_KEY: secretsKey });
    const [row] = await db.query(`SELECT secret_ciphertext, previous_secret_ciphertext FROM webhook_endpoints WHERE id = $1`, [id]);
    expect([alone.open(row.secret_ciphertext), alone.open(row.previous_secret_ciphertext)]).toEqual(['whsec_current', 'whsec_previous']);
    expect(await cli({ SECRETS_KEY: secretsKey }, 'secrets:reseal')).toEqual({ resealed: { idempotency_keys: 0, webhook_endpoints: 0 }, development_key_deleted: false });
  }, 60_000);

  it('opens what the development key sealed once SECRETS_KEY is set, and what SECRETS_KEY_PREVIOUS sealed once it is rotated', async () => {
    const development = await cipher({});
    const early = development.seal('whsec_early');

    const first = newKey();
    const configured = await cipher({ SECRETS_KEY: first });
    // Before: "Unsupported state or unable to authenticate data", and every delivery of the endpoint offered again for ever.
    expect(configured.open(early)).toBe('whsec_early');
    const later = configured.seal('whsec_later');
    expect(() => development.open(later)).toThrow();

    const rotated = await cipher({ SECRETS_KEY: newKey(), SECRETS_KEY_PREVIOUS: first });
    expect([rotated.open(early), rotated.open(later)]).toEqual(['whsec_early', 'whsec_later']);
    const unrelated = await cipher({ SECRETS_KEY: newKey() });
    expect(() => unrelated.open(later)).toThrow();
  });

  it('refuses to start the API or the worker when SECRETS_KEY opens none of the newest stored secrets; warns when it opens only some', async () => {
    const own = await isolatedDatabase('secrets_start');
    const ownDb = await new DataSource({ type: 'postgres', url: own.url }).initialize();
    try {
      const tenant = await created(own.url, 'tenant:create', '--name', 'Start Check Ltd');
      const key = await created(own.url, 'key:create', '--tenant', tenant.id, '--scopes', 'int:webhooks:manage');
      const endpointSealedWith = async (sealing: SecretsCipher, name: string) =>
        ownDb.query(
          `INSERT INTO webhook_endpoints (tenant_id, api_key_id, name, url, event_types, status, pii_enabled, secret_ciphertext)
           VALUES ($1, $2, $3, 'https://hooks.example/in', '{fin.invoice.created}', 'active', false, $4)`,
          [tenant.id, key.id, name, sealing.seal('whsec_start')],
        );
      const first = newKey();
      const made = new SecretsCipher(loadConfig({ DATABASE_URL: own.url, SECRETS_KEY: first }), ownDb);
      await made.onModuleInit();
      await endpointSealedWith(made, 'under the first key');
      const env = { DATABASE_URL: own.url, PORT: '0' };

      const other = newKey();
      for (const roles of ['api', 'worker']) {
        const refused = spawnMain({ ...env, APP_ROLES: roles, SECRETS_KEY: other });
        // Before: it started, and every delivery of the endpoint waited for ever on a secret it could not open.
        const outcome = await waitFor(
          async () =>
            refused.child.exitCode ?? (refused.lines().some((line) => line.msg === 'worker started' || typeof line.port === 'number') && 'started'),
          60_000,
          'an exit or a start',
        );
        await refused.stop();
        expect(outcome).toBe(1);
        expect(refused.stderr()).toMatch(/^SECRETS_KEY: opens none of the last stored webhook_endpoints secrets \(1 read\); they were sealed under another key/);
        expect(refused.stdout() + refused.stderr()).not.toContain(other);
      }

      const rotating = spawnMain({ ...env, APP_ROLES: 'api', SECRETS_KEY: other, SECRETS_KEY_PREVIOUS: first });
      await listeningPort(rotating);
      await rotating.stop();

      const sealingOther = new SecretsCipher(loadConfig({ DATABASE_URL: own.url, SECRETS_KEY: other }), ownDb);
      await sealingOther.onModuleInit();
      await endpointSealedWith(sealingOther, 'under the other key');
      const some = spawnMain({ ...env, APP_ROLES: 'api', SECRETS_KEY: other });
      await listeningPort(some);
      await some.stop();
      expect(some.lines().filter((line) => line.level === 40 && Array.isArray(line.unopened))).toEqual([
        expect.objectContaining({ unopened: [{ kind: 'webhook_endpoints', sampled: 2, unopened: 1 }] }),
      ]);
    } finally {
      await ownDb.destroy();
      await own.drop();
    }
  }, 120_000);
});
