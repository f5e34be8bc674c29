import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/platform/config/app-config.js';
import { SecretsCipher } from '../src/platform/crypto/secrets-cipher.js';
import { isolatedDatabase } from './support/deliveries.js';

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
