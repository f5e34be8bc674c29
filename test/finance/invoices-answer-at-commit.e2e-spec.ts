import type { DataSource } from 'typeorm';
import { Scope } from '../../src/platform/catalog/scopes.js';
import type { TestApi } from '../support/api.js';
import { onOwnDatabase } from '../support/deliveries.js';
import { countRows, type FinanceFixture, startFinanceApi } from '../support/finance.js';
import type { TenantSession } from '../support/tenant-session.js';

// The trigger below refuses every write to idempotency_keys after a commit: on the shared
// database it would refuse other files' answers too.
onOwnDatabase('answer_at_commit');

/**
 * The invoice writes answer with their transaction's result (`answersWithResult`), so the answer
 * is stored by the statement sent with the COMMIT: the change and its answer commit together.
 * Shown by a database that refuses to store any answer after a commit (as if the process stopped
 * right after it): a repeat is still replayed the first answer.
 */
describe('invoice writes store their answer with the commit (e2e)', () => {
  let api: TestApi;
  let session: TenantSession;
  let fin: FinanceFixture;
  let db: DataSource;

  beforeAll(async () => {
    ({ api, session, fin, db } = await startFinanceApi({ scopes: [Scope.FinInvoicesWrite] }));
    await db.query(`
      CREATE FUNCTION refuse_answer_after_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'no answer may be stored after the commit in this test';
      END $$;
      CREATE TRIGGER refuse_answer_after_commit BEFORE UPDATE ON idempotency_keys
        FOR EACH ROW WHEN (OLD.state = 'committed' AND NEW.state IN ('completed', 'too_large'))
        EXECUTE FUNCTION refuse_answer_after_commit();`);
  });
  afterAll(() => api.close());

  const send = (method: 'post' | 'patch', path: string, key: string, body: unknown) =>
    api.http[method](path).set('Authorization', session.auth).set('Idempotency-Key', key).set('Content-Type', 'application/json').send(JSON.stringify(body));
  const stored = async (key: string) =>
    (await db.query(`SELECT state, response_status, response_headers, response_body FROM idempotency_keys WHERE key = $1`, [key]))[0];

  it('POST /v1/invoices: the repeat is replayed the first status, body and Location', async () => {
    const body = fin.invoiceBody({ notes: 'answered at commit' });
    const first = await send('post', '/v1/invoices', 'create-1', body);
    expect(first.status).toBe(201);
    expect(first.headers.location).toBe(`https://api.test.local/v1/invoices/${first.body.id}`);
    expect(await stored('create-1')).toEqual({
      state: 'completed',
      response_status: 201,
      response_headers: { location: first.headers.location, 'content-type': 'application/json' },
      response_body: first.text,
    });
    const count = await countRows(api.app, 'invoices', session.tenant.id);

    const repeat = await send('post', '/v1/invoices', 'create-1', body);
    expect(repeat.status).toBe(201);
    expect(repeat.headers['idempotency-replayed']).toBe('true');
    expect(repeat.headers.location).toBe(first.headers.location);
    expect(repeat.text).toBe(first.text);
    expect(await countRows(api.app, 'invoices', session.tenant.id)).toBe(count);
  });

  it('PATCH /v1/invoices/{id}: the repeat is replayed the first answer', async () => {
    const created = await send('post', '/v1/invoices', 'create-2', fin.invoiceBody());
    const path = `/v1/invoices/${created.body.id}`;
    const first = await send('patch', path, 'patch-1', { notes: 'changed once' });
    expect(first.status).toBe(200);
    expect(first.body.notes).toBe('changed once');
    expect(await stored('patch-1')).toMatchObject({ state: 'completed', response_status: 200, response_body: first.text });

    const repeat = await send('patch', path, 'patch-1', { notes: 'changed once' });
    expect(repeat.status).toBe(200);
    expect(repeat.headers['idempotency-replayed']).toBe('true');
    expect(repeat.text).toBe(first.text);
  });

  it('a body refused before the transaction: the transaction begun with the claim is rolled back and its connection given back, and the refusal is replayed', async () => {
    const invalid = fin.invoiceBody({ currency: 'eur' });
    const first = await send('post', '/v1/invoices', 'refused-1', invalid);
    expect(first.status).toBe(422);
    expect(first.body.detail_key).toBe('errors.integrations.invoices.validation_failed');
    // Before the answer: nothing of the API left open in a transaction on this file's database.
    expect(await db.query(`SELECT count(*)::int AS open FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`)).toEqual([
      { open: 0 },
    ]);
    expect(await stored('refused-1')).toMatchObject({ state: 'completed', response_status: 422 });
    const repeat = await send('post', '/v1/invoices', 'refused-1', invalid);
    expect(repeat.status).toBe(422);
    expect(repeat.headers['idempotency-replayed']).toBe('true');
  });

  it('a refusal after the claim is still stored after the request, as before (the trigger is what refuses)', async () => {
    // A 404 commits nothing, so its answer is stored by a statement of its own: the trigger lets it through.
    const missing = await send('patch', '/v1/invoices/00000000-0000-4000-8000-000000000000', 'patch-404', { notes: 'x' });
    expect(missing.status).toBe(404);
    expect(await stored('patch-404')).toMatchObject({ state: 'completed', response_status: 404 });
  });
});
