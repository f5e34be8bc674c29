import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { Scope } from '../src/platform/catalog/scopes.js';
import { IdempotencyStore } from '../src/platform/idempotency/idempotency.store.js';
import { startApi, type TestApi } from './support/api.js';
import { rawRequest } from './support/raw-http.js';
import { createTenantSession, type TenantSession } from './support/tenant-session.js';
import { idempotentRuns, TestResourcesModule } from './support/test-resources.module.js';
import { waitFor } from './support/wait-for.js';

interface IdempotencyRow {
  tenant_id: string;
  api_key_id: string;
  key: string;
  method: string;
  path: string;
  request_hash: string;
  state: string;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  expires_in_seconds: number;
}

describe('Idempotency-Key (e2e)', () => {
  let api: TestApi;
  let db: DataSource;
  let session: TenantSession;

  beforeAll(async () => {
    api = await startApi({ modules: [TestResourcesModule] });
    db = api.app.get(DataSource);
  });
  afterAll(() => api.close());
  beforeEach(async () => {
    session = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesWrite] });
  });

  const executions = async (tenantId = session.tenant.id): Promise<number> =>
    Number((await db.query('SELECT count(*) AS n FROM events WHERE tenant_id = $1', [tenantId]))[0].n);

  const rows = (tenantId = session.tenant.id): Promise<IdempotencyRow[]> =>
    db.query(
      `SELECT tenant_id, api_key_id, key, method, path, request_hash, state, response_status, response_headers, response_body,
              extract(epoch FROM expires_at - clock_timestamp())::int AS expires_in_seconds
         FROM idempotency_keys WHERE tenant_id = $1 ORDER BY created_at`,
      [tenantId],
    );

  const post = (path: string, key: string | undefined, body: unknown, auth = session.auth) => {
    const req = api.http.post(path).set('Authorization', auth);
    if (key !== undefined) req.set('Idempotency-Key', key);
    return req.send(body as object);
  };

  const expectProblem = (res: Response, status: number, detailKey: string, type: string) => {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status, detail_key: detailKey, type: `https://api.test.local/errors/${type}` });
    expect(typeof res.body.title).toBe('string');
    expect(typeof res.body.detail).toBe('string');
  };

  it('counts the query string as part of the request: another query with the same key is 409 body_mismatch', async () => {
    const key = randomUUID();
    expect((await post('/v1/test_events?delay_ms=1', key, { n: 1 })).status).toBe(201);
    expectProblem(await post('/v1/test_events?delay_ms=2', key, { n: 1 }), 409, 'errors.idempotency.body_mismatch', 'idempotency-conflict');
    expect((await post('/v1/test_events?delay_ms=1', key, { n: 1 })).headers['idempotency-replayed']).toBe('true');
    expect(await executions()).toBe(1);
  });

  it('compares a row hashed on its body alone, as one stored before the query counted (or by an older process), with the body', async () => {
    const bodyOnly = createHash('sha256').update('{"n":1}').digest('hex');
    const asAnOlderRelease = () =>
      db.query(`UPDATE idempotency_keys SET hash_covers_query = false, request_hash = $2 WHERE tenant_id = $1`, [session.tenant.id, bodyOnly]);
    const replayed = randomUUID();
    const first = await post('/v1/test_events?delay_ms=1', replayed, { n: 1 });
    await asAnOlderRelease();
    const repeat = await post('/v1/test_events?delay_ms=1', replayed, { n: 1 });
    expect(repeat.status).toBe(201);
    expect(repeat.headers['idempotency-replayed']).toBe('true');
    expect(repeat.body.id).toBe(first.body.id);
    expectProblem(await post('/v1/test_events?delay_ms=1', replayed, { n: 2 }), 409, 'errors.idempotency.body_mismatch', 'idempotency-conflict');

    // Its stale claim is taken over by the same request too, as before.
    const stale = randomUUID();
    await db.query(
      `INSERT INTO idempotency_keys (tenant_id, api_key_id, key, method, path, request_hash, state, lock_token, locked_at, expires_at)
       VALUES ($1, $2, $3, 'POST', '/v1/test_events', $4, 'in_progress', gen_random_uuid(), clock_timestamp() - interval '61 seconds', clock_timestamp() + interval '1 day')`,
      [session.tenant.id, session.keyId, stale, bodyOnly],
    );
    const takeover = await post('/v1/test_events?delay_ms=1', stale, { n: 1 });
    expect(takeover.status).toBe(201);
    expect(takeover.headers['idempotency-replayed']).toBeUndefined();
    expect(await executions()).toBe(2);
  });

  it('runs every request that has no Idempotency-Key', async () => {
    const first = await post('/v1/test_events', undefined, { n: 1 });
    const second = await post('/v1/test_events', undefined, { n: 1 });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.body.id).not.toBe(second.body.id);
    expect(second.headers['idempotency-replayed']).toBeUndefined();
    expect(await executions()).toBe(2);
    expect(await rows()).toEqual([]);
  });

  it('stores the first answer and replays it, without running again, for 24 hours', async () => {
    const key = randomUUID();
    const first = await post('/v1/test_events', key, { amount_minor: 100, lines: [{ qty: 1 }] });
    expect(first.status).toBe(201);
    expect(first.headers['idempotency-replayed']).toBeUndefined();
    expect(first.headers.location).toBe(`https://api.test.local/v1/test_events/${first.body.id}`);

    const [row] = await rows();
    expect(row).toMatchObject({
      api_key_id: session.keyId,
      key,
      method: 'POST',
      path: '/v1/test_events',
      state: 'completed',
      response_status: 201,
      response_headers: { location: first.headers.location, 'content-type': 'application/json' },
      response_body: first.text,
    });
    expect(row.request_hash).toMatch(/^[\da-f]{64}$/);
    expect(row.expires_in_seconds).toBeGreaterThan(24 * 3600 - 60);
    expect(row.expires_in_seconds).toBeLessThanOrEqual(24 * 3600);

    const repeat = await post('/v1/test_events', key, { amount_minor: 100, lines: [{ qty: 1 }] });
    expect(repeat.status).toBe(201);
    expect(repeat.headers['idempotency-replayed']).toBe('true');
    expect(repeat.headers.location).toBe(first.headers.location);
    expect(repeat.headers['content-type']).toBe(first.headers['content-type']);
    expect(repeat.text).toBe(first.text);
    expect(repeat.headers['x-trace-id']).not.toBe(first.headers['x-trace-id']);
    expect(await executions()).toBe(1);
  });

  it('compares bodies as JSON: member order and spacing do not matter', async () => {
    const key = randomUUID();
    const first = await post('/v1/test_events', key, { a: 1, nested: { x: [1, 2], y: 'z' } });
    const repeat = await api.http
      .post('/v1/test_events')
      .set('Authorization', session.auth)
      .set('Idempotency-Key', key)
      .set('Content-Type', 'application/json')
      .send('{ "nested": { "y": "z", "x": [1, 2] },\n  "a": 1 }');
    expect(repeat.status).toBe(201);
    expect(repeat.headers['idempotency-replayed']).toBe('true');
    expect(repeat.text).toBe(first.text);
    expect(await executions()).toBe(1);
  });

  it('answers 409 body_mismatch when the key is reused with a different body', async () => {
    const key = randomUUID();
    await post('/v1/test_events', key, { lines: [{ qty: 1 }] });
    const res = await post('/v1/test_events', key, { lines: [{ qty: 2 }] });
    expectProblem(res, 409, 'errors.idempotency.body_mismatch', 'idempotency-conflict');
    expect(res.body.title).toMatch(/reused with a different request body/);
    // Spec 7 names the key as the detail too (before: a sentence repeating the title).
    expect(res.body.detail).toBe('errors.idempotency.body_mismatch');
    expect(res.headers['idempotency-replayed']).toBeUndefined();
    expect(await executions()).toBe(1);
    expect((await rows()).map((row) => row.state)).toEqual(['completed']);
  });

  it('keeps keys apart by method and path', async () => {
    const key = randomUUID();
    const id = randomUUID();
    expect((await post('/v1/test_events', key, {})).status).toBe(201);
    expect((await post('/v1/test_idempotency/ok', key, {})).status).toBe(201);
    const patch = await api.http.patch(`/v1/test_idempotency/items/${id}`).set('Authorization', session.auth).set('Idempotency-Key', key).send({});
    const remove = await api.http.delete(`/v1/test_idempotency/items/${id}`).set('Authorization', session.auth).set('Idempotency-Key', key);
    expect([patch.status, remove.status]).toEqual([200, 204]);
    expect(await executions()).toBe(4);
    expect((await rows()).map((row) => `${row.method} ${row.path}`).sort()).toEqual([
      `DELETE /v1/test_idempotency/items/${id}`,
      `PATCH /v1/test_idempotency/items/${id}`,
      'POST /v1/test_events',
      'POST /v1/test_idempotency/ok',
    ]);
  });

  it('treats one resource spelt differently (an upper-case or percent-encoded id) as the same request: replayed, not run again', async () => {
    const key = randomUUID();
    const id = randomUUID();
    const patch = (path: string) => api.http.patch(path).set('Authorization', session.auth).set('Idempotency-Key', key).send({});
    const first = await patch(`/v1/test_idempotency/items/${id}`);
    expect(first.status).toBe(200);
    const encoded = `%${id.charCodeAt(0).toString(16)}${id.slice(1)}`;
    for (const spelling of [id.toUpperCase(), encoded, `${id}/`]) {
      const repeat = await patch(`/v1/test_idempotency/items/${spelling}`);
      // Before: an upper-case or encoded id ran the request again, under a second stored key.
      expect([repeat.status, repeat.headers['idempotency-replayed']]).toEqual([200, 'true']);
    }
    expect(await executions()).toBe(1);
    expect((await rows()).map((row) => `${row.method} ${row.path}`)).toEqual([`PATCH /v1/test_idempotency/items/${id}`]);
  });

  it('keeps stored answers apart per API key and per company', async () => {
    const key = randomUUID();
    const first = await post('/v1/test_events', key, { same: true });
    const otherKey = await session.newKey([Scope.FinInvoicesWrite]);
    const sameCompany = await post('/v1/test_events', key, { same: true }, otherKey.auth);
    const otherCompany = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesWrite] });
    const elsewhere = await post('/v1/test_events', key, { same: true }, otherCompany.auth);

    for (const res of [sameCompany, elsewhere]) {
      expect(res.status).toBe(201);
      expect(res.headers['idempotency-replayed']).toBeUndefined();
      expect(res.body.id).not.toBe(first.body.id);
    }
    expect(await executions()).toBe(2);
    expect(await executions(otherCompany.tenant.id)).toBe(1);
    expect((await rows()).map((row) => row.api_key_id).sort()).toEqual([session.keyId, otherKey.id].sort());
  });

  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
    ['not printable ASCII', 'tab\there'],
    ['not ASCII', 'schl\u00fcssel'],
  ])('answers 422 invalid_key for a key that is %s, without running', async (_, key) => {
    const res = await post('/v1/test_events', key, {});
    expectProblem(res, 422, 'errors.platform.idempotency.invalid_key', 'validation');
    expect(res.body.field).toBe('Idempotency-Key');
    expect(await executions()).toBe(0);
    expect(await rows()).toEqual([]);
  });

  it('answers 422 invalid_key to two Idempotency-Key headers (which Node would join into one key "a, b"), without running', async () => {
    const headers = ['Host', 'localhost', 'Authorization', session.auth, 'Content-Type', 'application/json', 'Idempotency-Key', 'a', 'Idempotency-Key', 'b'];
    const res = await rawRequest(api.app, 'POST', '/v1/test_events', headers, '{}');
    expect(res.status).toBe(422);
    expect(JSON.parse(res.body.toString('utf8'))).toMatchObject({
      detail_key: 'errors.platform.idempotency.invalid_key',
      detail: 'Send exactly one Idempotency-Key header.',
      field: 'Idempotency-Key',
    });
    expect(await executions()).toBe(0);
    expect(await rows()).toEqual([]);
    // The same text in one header is one key.
    expect((await post('/v1/test_events', 'a, b', {})).status).toBe(201);
    expect((await post('/v1/test_events', 'a, b', {})).headers['idempotency-replayed']).toBe('true');
  });

  it('accepts a key of exactly 255 printable characters', async () => {
    const key = `${'~ '.repeat(127)}!`;
    expect(key).toHaveLength(255);
    expect((await post('/v1/test_events', key, {})).status).toBe(201);
    expect((await post('/v1/test_events', key, {})).headers['idempotency-replayed']).toBe('true');
  });

  it('ignores the header on GET', async () => {
    const res = await api.http.get('/v1/test_events').set('Authorization', session.auth).set('Idempotency-Key', 'x');
    expect(res.status).toBe(200);
    expect(res.headers['idempotency-replayed']).toBeUndefined();
    expect(await rows()).toEqual([]);
  });

  it.each([
    ['invalid_reference', 'errors.common.validation.invalid_reference'],
    ['invalid_input', 'errors.common.validation.invalid_input'],
  ])('does not store a 422 %s: a retry runs again', async (outcome, detailKey) => {
    const key = randomUUID();
    const before = idempotentRuns.count;
    const first = await post(`/v1/test_idempotency/${outcome}`, key, { customer_id: 'c' });
    expectProblem(first, 422, detailKey, 'validation');
    expect(await rows()).toEqual([]);
    const retry = await post(`/v1/test_idempotency/${outcome}`, key, { customer_id: 'c' });
    expectProblem(retry, 422, detailKey, 'validation');
    expect(retry.headers['idempotency-replayed']).toBeUndefined();
    expect(idempotentRuns.count - before).toBe(2);
    expect(await executions()).toBe(0);
    expect(await rows()).toEqual([]);
  });

  it('does not store the invalid_input of a malformed path id', async () => {
    const res = await api.http.patch('/v1/test_idempotency/items/not-a-uuid').set('Authorization', session.auth).set('Idempotency-Key', 'k').send({});
    expectProblem(res, 422, 'errors.common.validation.invalid_input', 'validation');
    expect(await rows()).toEqual([]);
    expect(await executions()).toBe(0);
  });

  it('answers a path id holding a NUL (%00) with its route’s 422 invalid_input, not stored, not a 500', async () => {
    const patch = await api.http.patch('/v1/test_idempotency/items/%00').set('Authorization', session.auth).set('Idempotency-Key', 'nul').send({});
    expectProblem(patch, 422, 'errors.common.validation.invalid_input', 'validation');
    const voided = await api.http.post('/v1/invoices/a%00b/void').set('Authorization', session.auth).set('Idempotency-Key', 'nul');
    expectProblem(voided, 422, 'errors.common.validation.invalid_input', 'validation');
    expect(await rows()).toEqual([]);
    expect(await executions()).toBe(0);
  });

  it('keeps a path value other than a UUID in one percent-encoded spelling, however the client encoded it', async () => {
    for (const spelling of ['a%20b', 'a%20%62']) expect((await post(`/v1/test_idempotency/${spelling}`, 'spelt', {})).status).toBe(201);
    expect(await executions()).toBe(1);
    expect((await rows()).map((row) => row.path)).toEqual(['/v1/test_idempotency/a%20b']);
  });

  describe('a path longer than an index entry can hold', () => {
    // Random characters, so that PostgreSQL cannot compress them below its 2.7 kB entry limit.
    const longSegment = () => randomBytes(3000).toString('base64url').slice(0, 3500);

    it('is stored and replayed like any other', async () => {
      const path = `/v1/test_idempotency/${longSegment()}`;
      const first = await post(path, 'long', {});
      expect(first.status).toBe(201);
      const repeat = await post(path, 'long', {});
      expect(repeat.status).toBe(201);
      expect(repeat.headers['idempotency-replayed']).toBe('true');
      expect(repeat.body).toEqual(first.body);
      expect(await executions()).toBe(1);
      expect((await rows()).map((row) => row.path)).toEqual([path]);
    });

    it('with a malformed id gets the route’s 422 invalid_input, not stored', async () => {
      const res = await api.http.patch(`/v1/test_idempotency/items/${longSegment()}`).set('Authorization', session.auth).set('Idempotency-Key', 'k').send({});
      expectProblem(res, 422, 'errors.common.validation.invalid_input', 'validation');
      expect(await rows()).toEqual([]);
    });
  });

  it('refuses a change made outside a transaction while an idempotent request runs: it would commit without the claim', async () => {
    const outside = () => db.query(`SELECT count(*)::int AS n FROM customers WHERE tenant_id = $1 AND name = 'made outside a transaction'`, [session.tenant.id]);
    const refused = await post('/v1/test_idempotency/outside_transaction', randomUUID(), {});
    expectProblem(refused, 500, 'errors.common.internal', 'internal');
    expect(await outside()).toEqual([{ n: 0 }]);
    expect(await rows()).toEqual([]);
    // Without an Idempotency-Key there is no claim to commit with: the same change is made.
    const plain = await api.http.post('/v1/test_idempotency/outside_transaction').set('Authorization', session.auth).send({});
    expect(plain.status).toBe(201);
    expect(await outside()).toEqual([{ n: 1 }]);
  });

  it('does not store a 5xx: a retry runs again', async () => {
    const key = randomUUID();
    const before = idempotentRuns.count;
    const first = await post('/v1/test_idempotency/crash', key, {});
    expectProblem(first, 500, 'errors.common.internal', 'internal');
    expect(first.text).not.toContain('secret detail');
    expect(await rows()).toEqual([]);
    const retry = await post('/v1/test_idempotency/crash', key, {});
    expect(retry.status).toBe(500);
    expect(retry.headers['idempotency-replayed']).toBeUndefined();
    expect(idempotentRuns.count - before).toBe(2);
  });

  it('keeps the claim of a request that failed after its change committed: a 503, and a repeat is told it ran, never running it twice', async () => {
    const key = randomUUID();
    const first = await post('/v1/test_idempotency/commit_in_doubt', key, {});
    expectProblem(first, 503, 'errors.common.service_unavailable', 'internal');
    expect(await executions()).toBe(1);
    expect(await rows()).toMatchObject([{ key, state: 'committed', response_status: null }]);
    // At once, not after the stale limit: the process that ran it knows it will store no answer.
    const repeat = await post('/v1/test_idempotency/commit_in_doubt', key, {});
    expectProblem(repeat, 409, 'errors.platform.idempotency.replay_unavailable', 'idempotency-conflict');
    expect(repeat.body.detail).toMatch(/its change was saved/);
    expect(await executions()).toBe(1);
  });

  it('releases the claim of a 5xx even when the first try to release it fails for a moment (a connection lost with the request)', async () => {
    // The first DELETE of a claim fails as a serialization failure would; nextval is not rolled back with it.
    await db.query(`CREATE SEQUENCE release_faults`);
    await db.query(`CREATE FUNCTION fail_first_release() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF nextval('release_faults') = 1 THEN RAISE EXCEPTION 'simulated' USING ERRCODE = '40001'; END IF; RETURN OLD; END $$`);
    // This company's rows only: other files' requests run on the same database meanwhile.
    await db.query(`CREATE TRIGGER fail_first_release BEFORE DELETE ON idempotency_keys FOR EACH ROW
      WHEN (OLD.tenant_id = '${session.tenant.id}') EXECUTE FUNCTION fail_first_release()`);
    try {
      const key = randomUUID();
      const before = idempotentRuns.count;
      expect((await post('/v1/test_idempotency/crash', key, {})).status).toBe(500);
      expect(await rows()).toEqual([]);
      // Before: the claim stayed in progress, and the repeat was 409 in_progress for 60 s.
      expect((await post('/v1/test_idempotency/crash', key, {})).status).toBe(500);
      expect(idempotentRuns.count - before).toBe(2);
    } finally {
      await db.query(`DROP TRIGGER fail_first_release ON idempotency_keys; DROP FUNCTION fail_first_release(); DROP SEQUENCE release_faults`);
    }
  });

  // A route declared answersWithResult that answers otherwise (`ok`), or that commits a second
  // transaction after the first stored its answer (`twice`: the claim, completed, is marked
  // committed again): the answer it sent is stored and replayed, and it ran once.
  it.each([
    ['ok', 1],
    ['twice', 2],
  ])('stores the answer sent, over the one stored with the commit, by a route declared answersWithResult answering otherwise (%s)', async (outcome, transactions) => {
    const key = randomUUID();
    const first = await post(`/v1/test_idempotency/misdeclared/${outcome}`, key, { n: 1 });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: expect.any(String), outcome });
    expect(await rows()).toMatchObject([{ state: 'completed', response_status: 201, response_body: first.text }]);
    const repeat = await post(`/v1/test_idempotency/misdeclared/${outcome}`, key, { n: 1 });
    expect(repeat.headers['idempotency-replayed']).toBe('true');
    expect(repeat.text).toBe(first.text);
    expect(await executions()).toBe(transactions);
  });

  it('refuses a read before the transaction on a route declared answersWithResult (its begun transaction holds a connection meanwhile), and forgets the claim', async () => {
    const key = randomUUID();
    const before = idempotentRuns.count;
    expect((await post('/v1/test_idempotency/misdeclared/read_first', key, {})).status).toBe(500);
    expect(idempotentRuns.count).toBe(before);
    expect(await rows()).toEqual([]);
    expect((await post('/v1/test_idempotency/misdeclared/read_first', key, {})).status).toBe(500);
  });

  it('stores the answer once the database answers again when storing it failed for a few seconds after the commit: repeats are then replayed', async () => {
    // Storing the answer fails three times in a row, as through a short outage; nextval is not rolled back with it.
    await db.query(`CREATE SEQUENCE answer_faults`);
    await db.query(`CREATE FUNCTION fail_first_answers() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF nextval('answer_faults') <= 3 THEN RAISE EXCEPTION 'simulated' USING ERRCODE = '40001'; END IF; RETURN NEW; END $$`);
    // This company's rows only: an invoice write of another file stores its answer with its commit, which this would fail.
    await db.query(`CREATE TRIGGER fail_first_answers BEFORE UPDATE ON idempotency_keys FOR EACH ROW
      WHEN (NEW.state = 'completed' AND NEW.tenant_id = '${session.tenant.id}') EXECUTE FUNCTION fail_first_answers()`);
    try {
      const key = randomUUID();
      const first = await post('/v1/test_events', key, { n: 1 });
      expect(first.status).toBe(201);
      // Before: the two tries at once failed, the claim stayed committed, and every repeat was 409 for 24 hours.
      await waitFor(async () => (await rows()).some((row) => row.state === 'completed'), 10_000, 'the answer stored in the background');
      const repeat = await post('/v1/test_events', key, { n: 1 });
      expect(repeat.status).toBe(201);
      expect(repeat.headers['idempotency-replayed']).toBe('true');
      expect(repeat.body.id).toBe(first.body.id);
      expect(await executions()).toBe(1);
    } finally {
      await db.query(`DROP TRIGGER fail_first_answers ON idempotency_keys; DROP FUNCTION fail_first_answers(); DROP SEQUENCE answer_faults`);
    }
  });

  it.each([
    ['not_found', 404, 'errors.integrations.invoices.not_found', 'not-found'],
    ['validation_failed', 422, 'errors.integrations.invoices.validation_failed', 'validation'],
  ])('stores and replays a %s problem', async (outcome, status, detailKey, type) => {
    const key = randomUUID();
    const before = idempotentRuns.count;
    const first = await post(`/v1/test_idempotency/${outcome}`, key, {});
    expectProblem(first, status, detailKey, type);
    const [row] = await rows();
    expect(row).toMatchObject({ state: 'completed', response_status: status, response_headers: { 'content-type': 'application/problem+json' } });
    expect(JSON.parse(row.response_body!)).toEqual(first.body);

    const repeat = await post(`/v1/test_idempotency/${outcome}`, key, {});
    expectProblem(repeat, status, detailKey, type);
    expect(repeat.headers['idempotency-replayed']).toBe('true');
    expect(repeat.text).toBe(first.text);
    expect(idempotentRuns.count - before).toBe(1);
  });

  it('stores and replays an empty 204 answer', async () => {
    const key = randomUUID();
    const id = randomUUID();
    const remove = () => api.http.delete(`/v1/test_idempotency/items/${id}`).set('Authorization', session.auth).set('Idempotency-Key', key);
    expect((await remove()).status).toBe(204);
    const repeat = await remove();
    expect(repeat.status).toBe(204);
    expect(repeat.headers['idempotency-replayed']).toBe('true');
    expect(repeat.text).toBe('');
    expect(await executions()).toBe(1);
    expect(await rows()).toMatchObject([{ state: 'completed', response_status: 204, response_body: null }]);
  });

  it('keeps no body over 256 KiB and answers repeats 409 replay_unavailable', async () => {
    const key = randomUUID();
    const first = await post('/v1/test_idempotency/large', key, {});
    expect(first.status).toBe(201);
    expect(first.text.length).toBeGreaterThan(256 * 1024);
    expect(await rows()).toMatchObject([{ state: 'too_large', response_status: 201, response_body: null, response_headers: null }]);

    const repeat = await post('/v1/test_idempotency/large', key, {});
    expectProblem(repeat, 409, 'errors.platform.idempotency.replay_unavailable', 'idempotency-conflict');
    expect(await executions()).toBe(1);
  });

  it('answers a concurrent repeat 409 in_progress while the first request runs, never running it twice', async () => {
    const key = randomUUID();
    // The query is part of the request: every repeat names the same delay.
    const path = '/v1/test_events?delay_ms=1000';
    const slow = post(path, key, { n: 1 }).then((res) => res);
    await waitFor(async () => (await rows()).some((row) => row.state === 'in_progress'), 5000, 'the in-progress claim');

    const concurrent = await post(path, key, { n: 1 });
    expectProblem(concurrent, 409, 'errors.platform.idempotency.in_progress', 'idempotency-conflict');

    const first = await slow;
    expect(first.status).toBe(201);
    const after = await post(path, key, { n: 1 });
    expect(after.headers['idempotency-replayed']).toBe('true');
    expect(after.body.id).toBe(first.body.id);
    expect(await executions()).toBe(1);
  });

  it('lets a repeat take over a claim left in progress for over 60 seconds; the stale holder can then neither commit nor overwrite it', async () => {
    const key = randomUUID();
    const path = '/v1/test_events?delay_ms=1500';
    const stale = post(path, key, { n: 1 }).then((res) => res);
    await waitFor(async () => (await rows()).some((row) => row.state === 'in_progress'), 5000, 'the in-progress claim');
    // As if the process holding the claim had died a minute ago.
    await db.query(`UPDATE idempotency_keys SET locked_at = clock_timestamp() - interval '61 seconds' WHERE tenant_id = $1`, [session.tenant.id]);

    const mismatch = await post(path, key, { n: 2 });
    expectProblem(mismatch, 409, 'errors.idempotency.body_mismatch', 'idempotency-conflict');

    const takeover = await post(path, key, { n: 1 });
    expect(takeover.status).toBe(201);
    expect(takeover.headers['idempotency-replayed']).toBeUndefined();
    // Its claim is gone: its transaction is rolled back rather than applied a second time.
    const original = await stale;
    expectProblem(original, 409, 'errors.platform.idempotency.in_progress', 'idempotency-conflict');

    const [row] = await rows();
    expect(row.state).toBe('completed');
    expect(JSON.parse(row.response_body!).id).toBe(takeover.body.id);
    expect((await post(path, key, { n: 1 })).body.id).toBe(takeover.body.id);
    expect(await executions()).toBe(1);
  });

  it('lets work its handler left running commit after the answer, without touching the stored answer', async () => {
    const key = randomUUID();
    const first = await post('/v1/test_idempotency/background', key, {});
    expect(first.status).toBe(201);
    await waitFor(async () => (await executions()) === 2, 5000, 'the transaction the request left running');
    expect(await rows()).toMatchObject([{ state: 'completed', response_status: 201 }]);
    expect((await post('/v1/test_idempotency/background', key, {})).headers['idempotency-replayed']).toBe('true');
  });

  describe('a process that stops between its commit and storing its answer', () => {
    // Storing this one key's answer fails, as if the process had died right after its commit.
    const key = `stops-after-commit-${randomUUID()}`;
    beforeAll(async () => {
      await db.query(`CREATE FUNCTION refuse_answer_of_test_key() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'the process stopped'; END $$`);
      await db.query(`CREATE TRIGGER refuse_answer_of_test_key BEFORE UPDATE ON idempotency_keys FOR EACH ROW
        WHEN (NEW.key = '${key}' AND NEW.state = 'completed') EXECUTE FUNCTION refuse_answer_of_test_key()`);
    });
    afterAll(async () => {
      await db.query('DROP TRIGGER refuse_answer_of_test_key ON idempotency_keys');
      await db.query('DROP FUNCTION refuse_answer_of_test_key');
    });

    it('leaves the claim committed with its change, and a repeat is told it ran, never running it twice', async () => {
      const first = await post('/v1/test_events', key, { n: 1 });
      expect(first.status).toBe(201);
      expect(await executions()).toBe(1);
      expect(await rows()).toMatchObject([{ key, state: 'committed', response_status: null }]);

      // Still within the stale limit: the answer may yet be stored.
      expectProblem(await post('/v1/test_events', key, { n: 1 }), 409, 'errors.platform.idempotency.in_progress', 'idempotency-conflict');

      await db.query(`UPDATE idempotency_keys SET locked_at = clock_timestamp() - interval '61 seconds' WHERE tenant_id = $1`, [session.tenant.id]);
      const repeat = await post('/v1/test_events', key, { n: 1 });
      expectProblem(repeat, 409, 'errors.platform.idempotency.replay_unavailable', 'idempotency-conflict');
      expect(repeat.body.detail).toMatch(/its change was saved/);
      expect(repeat.headers['idempotency-replayed']).toBeUndefined();
      expect(await executions()).toBe(1);
      expect(await rows()).toMatchObject([{ state: 'committed' }]);
    });
  });

  it('ignores and replaces a stored answer past its 24 hours', async () => {
    const key = randomUUID();
    const first = await post('/v1/test_events', key, { n: 1 });
    await db.query(`UPDATE idempotency_keys SET expires_at = clock_timestamp() - interval '1 second' WHERE tenant_id = $1`, [session.tenant.id]);

    const again = await post('/v1/test_events', key, { n: 2 });
    expect(again.status).toBe(201);
    expect(again.headers['idempotency-replayed']).toBeUndefined();
    expect(again.body.id).not.toBe(first.body.id);
    const [row] = await rows();
    expect(JSON.parse(row.response_body!).id).toBe(again.body.id);
    expect(row.expires_in_seconds).toBeGreaterThan(24 * 3600 - 60);
    expect(await executions()).toBe(2);
  });

  it("commits a claim without waiting for its flush, and the request's own transaction begun with it durably", async () => {
    // The claim's transaction, however it is sent: the setting holds to its commit.
    const claimText = `SELECT idempotency_claim($1, $2, $3, 'POST', '/v1/test_events', $4, $4, $5, 24, 60) AS id`;
    const setting = await db.transaction(async (manager) => {
      const [claimed] = await manager.query(claimText, [session.tenant.id, session.keyId, randomUUID(), 'a'.repeat(64), randomUUID()]);
      expect(claimed.id).toEqual(expect.any(String));
      return (await manager.query('SHOW synchronous_commit'))[0].synchronous_commit;
    });
    expect(setting).toBe('off');

    const store = api.app.get(IdempotencyStore);
    const outcome = await store.claim(
      { tenantId: session.tenant.id, apiKeyId: session.keyId, key: randomUUID(), method: 'POST', path: '/v1/test_events' },
      { request: 'a'.repeat(64), body: 'a'.repeat(64) },
      { begin: true },
    );
    if (outcome.kind !== 'claimed' || outcome.transaction === undefined) throw new Error(`not claimed in a begun transaction: ${outcome.kind}`);
    const transaction = outcome.transaction;
    try {
      // Committed: another connection sees the claim while the request runs.
      expect((await db.query('SELECT state FROM idempotency_keys WHERE id = $1', [outcome.claim.id]))[0].state).toBe('in_progress');
      // The request's change, committed in the begun transaction, waits for its flush as every change does.
      expect((await transaction.query('SHOW synchronous_commit'))[0].synchronous_commit).toBe('on');
    } finally {
      await transaction.rollbackTransaction();
      await transaction.release();
    }
  });

  it("writes a claim's commit mark and its answer as heap-only updates: no index covers a member they set, and pages keep room", async () => {
    const indexes: { name: string; definition: string }[] = await db.query(
      `SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS definition FROM pg_index WHERE indrelid = 'idempotency_keys'::regclass`,
    );
    expect(indexes.length).toBeGreaterThanOrEqual(3);
    for (const member of ['state', 'locked_at', 'updated_at', 'response_status', 'response_headers', 'response_body']) {
      for (const { name, definition } of indexes) expect([member, name, new RegExp(`\\b${member}\\b`).test(definition)]).toEqual([member, name, false]);
    }
    const [{ reloptions }] = await db.query(`SELECT reloptions FROM pg_class WHERE oid = 'idempotency_keys'::regclass`);
    expect(reloptions).toContain('fillfactor=70');

    // The mark, in its transaction: PostgreSQL counts it as heap-only there. (The connection's
    // count also holds earlier transactions' not yet reported, hence the difference.)
    const store = api.app.get(IdempotencyStore);
    const outcome = await store.claim({ tenantId: session.tenant.id, apiKeyId: session.keyId, key: randomUUID(), method: 'POST', path: '/v1/test_events' }, { request: 'a'.repeat(64), body: 'a'.repeat(64) });
    if (outcome.kind !== 'claimed') throw new Error(`not claimed: ${outcome.kind}`);
    const heapOnly = await db.transaction(async (manager) => {
      const count = async () => Number((await manager.query(`SELECT pg_stat_get_xact_tuples_hot_updated('idempotency_keys'::regclass) AS n`))[0].n);
      const before = await count();
      // The mark alone, not the COMMIT sent with it: the count is read in the transaction.
      await store.commitMarked((statement) => manager.query(statement!), outcome.claim);
      return (await count()) - before;
    });
    expect(heapOnly).toBe(1);

    // The answer keeps the claim's expiry: 24 hours from the first request, and no indexed member moved.
    const expiry = async () => (await db.query('SELECT expires_at FROM idempotency_keys WHERE id = $1', [outcome.claim.id]))[0].expires_at as Date;
    const claimed = await expiry();
    await store.complete(outcome.claim, { status: 201, headers: {}, body: '{}' });
    expect(await expiry()).toEqual(claimed);
    expect((await db.query('SELECT state FROM idempotency_keys WHERE id = $1', [outcome.claim.id]))[0].state).toBe('completed');
  });
});
