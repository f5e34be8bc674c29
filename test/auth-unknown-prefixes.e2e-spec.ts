import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Scope } from '../src/platform/catalog/scopes.js';
import { startApi, type TestApi } from './support/api.js';
import { onOwnDatabase } from './support/deliveries.js';
import { createTenantSession, type TenantSession } from './support/tenant-session.js';
import { waitFor } from './support/wait-for.js';

// Its own database: the test locks the keys' table, which would hold up other files' requests,
// and other files' key changes and terminated connections would clear the memory it looks at.
onOwnDatabase('unknown_prefixes');

/**
 * A 401 must not say whether a prefix names a key: a known prefix with a wrong secret is
 * answered from the process's memory once read, so an unknown one is too (before, every unknown
 * prefix cost a database round trip, 2-4 ms a review could measure).
 */
describe('answers for unknown prefixes (e2e)', () => {
  let api: TestApi;
  let session: TenantSession;
  let db: pg.Client;

  beforeAll(async () => {
    // A statement bound of 1 s: a lookup held by the lock below is answered 503 after it.
    api = await startApi({ env: { DATABASE_STATEMENT_TIMEOUT_MS: '1000' } });
    session = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesRead] });
    db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await api.close();
  });

  const status = async (auth: string) => (await api.http.get('/v1/invoices').set('Authorization', auth)).status;
  const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const unknownKey = () => ({ prefix: randomBytes(6).toString('hex'), secret: Array.from(randomBytes(43), (byte) => ALPHANUMERIC[byte % 62]).join('') });
  const bearer = (key: { prefix: string; secret: string }) => `Bearer oh_live_${key.prefix}_${key.secret}`;

  it('answers an unknown prefix seen before from memory, as a known prefix with a wrong secret', async () => {
    const unknown = bearer(unknownKey());
    const wrongSecret = session.auth.replace(/_[A-Za-z0-9]{43}$/, `_${'B'.repeat(43)}`);
    expect([await status(unknown), await status(wrongSecret)]).toEqual([401, 401]);
    // With the keys' table locked, only what is remembered can be answered in time.
    await db.query('BEGIN');
    try {
      await db.query('LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE');
      expect([await status(unknown), await status(wrongSecret)]).toEqual([401, 401]);
      expect(await status(bearer(unknownKey()))).toBe(503);
    } finally {
      await db.query('ROLLBACK');
    }
  });

  it('forgets that a prefix names no key as soon as a key with it is created', async () => {
    const key = unknownKey();
    expect(await status(bearer(key))).toBe(401);
    await db.query(
      `INSERT INTO api_keys (tenant_id, prefix, secret_hash, scopes, created_by_user_id, name)
       SELECT tenant_id, $2, sha256(convert_to($3, 'UTF8')), scopes, created_by_user_id, 'probe' FROM api_keys WHERE id = $1`,
      [session.keyId, key.prefix, key.secret],
    );
    // Well within the 10 s the memory would otherwise keep it: the creation's notification drops it.
    await waitFor(async () => (await status(bearer(key))) === 200, 5_000, 'the new key to be accepted');
  });
});
