import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/platform/config/app-config.js';
import { SecretsCipher } from '../src/platform/crypto/secrets-cipher.js';
import { isolatedDatabase } from './support/deliveries.js';
import { spawnNode } from './support/main-process.js';

/** Setting SECRETS_KEY, as the start-up warning says to, or rotating it, keeps what was sealed before readable. */
describe('SecretsCipher across a change of SECRETS_KEY (e2e, PostgreSQL)', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: DataSource;
  const newKey = () => randomBytes(32).toString('base64');
  const cipher = async (env: Record<string, string>) => {
    const made = new SecretsCipher(loadConfig({ DATABASE_URL: database.url, ...env }), db);
    await made.onModuleInit();
    return made;
  };

  beforeAll(async () => {
    database = await isolatedDatabase('secrets_key');
    db = await new DataSource({ type: 'postgres', url: database.url }).initialize();
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  it('secrets:reseal seals every stored secret again under SECRETS_KEY, then drops the development key; what follows needs neither', async () => {
    const cli = async (env: Record<string, string>, ...argv: string[]) => {
      const run = spawnNode(['dist/cli.js', ...argv], { DATABASE_URL: database.url, ...env });
      expect([await run.exit, run.stderr()]).toEqual([0, '']);
      return JSON.parse(run.stdout()) as Record<string, any>;
    };
    const development = await cipher({});
    const tenant = await cli({}, 'tenant:create', '--name', 'Reseal Ltd');
    const key = await cli({}, 'key:create', '--tenant', tenant.id, '--scopes', 'int:webhooks:manage');
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
});
