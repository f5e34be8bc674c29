import { DataSource } from 'typeorm';
import { Scope } from '../src/platform/catalog/scopes.js';
import { CursorCodec } from '../src/platform/pagination/cursor-codec.js';
import { startApi, type TestApi } from './support/api.js';
import { createTenantSession, type TenantSession } from './support/tenant-session.js';
import { TestResourcesModule } from './support/test-resources.module.js';

interface PageBody {
  data: { id: string; type: string }[];
  next_cursor: string | null;
  has_more: boolean;
}

describe('pagination (e2e, through the test-only GET /v1/test_events)', () => {
  let api: TestApi;
  let db: DataSource;

  beforeAll(async () => {
    api = await startApi({ modules: [TestResourcesModule] });
    db = api.app.get(DataSource);
  });
  afterAll(() => api.close());

  const company = () => createTenantSession(api.app, { scopes: [Scope.FinInvoicesWrite] });

  /** Inserts `count` events at `at` (a PostgreSQL timestamp expression), all in one microsecond when `at` is a literal. */
  async function insert(session: TenantSession, count: number, at: string): Promise<void> {
    await db.query(
      `INSERT INTO events (id, tenant_id, type, envelope, created_at)
       SELECT gen_random_uuid(), $1, 'fin.invoice.created', '{}'::jsonb, ${at} FROM generate_series(1, $2) AS n`,
      [session.tenant.id, count],
    );
  }

  async function expectedOrder(session: TenantSession): Promise<string[]> {
    const rows: { id: string }[] = await db.query('SELECT id FROM events WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC', [session.tenant.id]);
    return rows.map((row) => row.id);
  }

  async function page(session: TenantSession, query: Record<string, string>): Promise<{ status: number; body: PageBody & Record<string, unknown> }> {
    return api.http.get('/v1/test_events').query(query).set('Authorization', session.auth);
  }

  async function walk(session: TenantSession, limit: number, between?: (pageNumber: number) => Promise<void>): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let pageNumber = 1; pageNumber < 1000; pageNumber += 1) {
      const res = await page(session, cursor ? { limit: String(limit), cursor } : { limit: String(limit) });
      expect(res.status).toBe(200);
      ids.push(...res.body.data.map((item) => item.id));
      if (!res.body.has_more) {
        expect(res.body.next_cursor).toBeNull();
        return ids;
      }
      expect(res.body.data).toHaveLength(limit);
      cursor = res.body.next_cursor;
      await between?.(pageNumber);
    }
    throw new Error('the walk did not end');
  }

  it('answers the page envelope, 50 items by default, newest first', async () => {
    const session = await company();
    await insert(session, 60, `clock_timestamp() - n * interval '1 second'`);
    const first = await page(session, {});
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(first.body.data).toHaveLength(50);
    expect(first.body.has_more).toBe(true);
    expect(typeof first.body.next_cursor).toBe('string');
    expect(first.body.data.map((item) => item.id)).toEqual((await expectedOrder(session)).slice(0, 50));
  });

  it('answers an empty page for a company without rows', async () => {
    const res = await page(await company(), {});
    expect(res.body).toEqual({ data: [], next_cursor: null, has_more: false });
  });

  it.each([
    ['0', 1],
    ['-5', 1],
    ['1', 1],
    ['100', 100],
    ['101', 100],
    ['1000000', 100],
  ])('clamps limit=%s to %d', async (limit, expected) => {
    const session = await company();
    await insert(session, 110, `clock_timestamp() - n * interval '1 millisecond'`);
    const res = await page(session, { limit });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(expected);
    expect(res.body.has_more).toBe(true);
  });

  it.each(['abc', '1.5', '', '10abc'])('answers 422 invalid_input to limit=%p', async (limit) => {
    const res = await page(await company(), { limit });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ detail_key: 'errors.common.validation.invalid_input', field: 'limit' });
  });

  it('walks every row once, newest first, through ties within one microsecond', async () => {
    const session = await company();
    await insert(session, 5, `clock_timestamp() - n * interval '1 hour'`);
    await insert(session, 17, `'2026-01-01T10:00:00.123456Z'::timestamptz`);
    await insert(session, 9, `'2026-01-01T10:00:00.123457Z'::timestamptz`);
    await insert(session, 4, `'2025-06-01T00:00:00Z'::timestamptz - n * interval '1 microsecond'`);
    const expected = await expectedOrder(session);
    expect(expected).toHaveLength(35);
    for (const limit of [1, 4, 7, 35, 100]) {
      const ids = await walk(session, limit);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(expected);
    }
  });

  it('keeps its position when rows are created during the walk', async () => {
    const session = await company();
    await insert(session, 20, `clock_timestamp() - n * interval '1 second'`);
    const before = await expectedOrder(session);
    const newer: string[] = [];
    const ids = await walk(session, 6, async (pageNumber) => {
      // A newer row sorts behind the cursor and must not appear; an older one lies ahead and is reached.
      newer.push((await api.http.post('/v1/test_events').set('Authorization', session.auth).send({ page: pageNumber })).body.id);
      await insert(session, 1, `'2020-01-01T00:00:00Z'::timestamptz + ${pageNumber} * interval '1 day'`);
    });
    expect(newer).toHaveLength(3);
    expect(ids.slice(0, before.length)).toEqual(before);
    expect(ids).toEqual((await expectedOrder(session)).filter((id) => !newer.includes(id)));
    expect(ids).toHaveLength(before.length + 3);
  });

  describe('cursor', () => {
    let session: TenantSession;
    let cursor: string;

    beforeAll(async () => {
      session = await company();
      await insert(session, 5, `clock_timestamp() - n * interval '1 second'`);
      cursor = (await page(session, { limit: '2' })).body.next_cursor!;
    });

    const expectInvalid = async (value: string) => {
      const res = await page(session, { limit: '2', cursor: value });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ status: 422, detail_key: 'errors.integrations.invoices.invalid_cursor', field: 'cursor' });
    };

    it('is opaque and accepted back unchanged', async () => {
      expect(cursor).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
      expect((await page(session, { limit: '2', cursor })).status).toBe(200);
    });

    it('is refused when tampered with', async () => {
      const [payload, signature] = cursor.split('.');
      const position = JSON.parse(Buffer.from(payload, 'base64url').toString()) as [string, string];
      const moved = Buffer.from(JSON.stringify([position[0].replace(/\d$/, (d) => String((Number(d) + 1) % 10)), position[1]])).toString('base64url');
      await expectInvalid(`${moved}.${signature}`);
      // Another first character, which always changes the signature's bytes (its last ones may already read AA, 1 in 1,024 runs).
      await expectInvalid(`${payload}.${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`);
      await expectInvalid(`${payload}.${signature}.extra`);
      await expectInvalid('garbage');
      await expectInvalid('x'.repeat(600));
    });

    it('is refused when issued by another list or signed with another secret', async () => {
      const [{ value: secret }] = await db.query(`SELECT value FROM platform_settings WHERE name = 'cursor_secret'`);
      const position = JSON.parse(Buffer.from(cursor.split('.')[0], 'base64url').toString()) as [string, string];
      const at = { createdAt: position[0], id: position[1] };
      const holder = `${session.tenant.id}/${session.keyId}`;
      expect(new CursorCodec(secret).encode(`test_events\n${holder}`, at)).toBe(cursor);
      await expectInvalid(new CursorCodec(secret).encode(`invoices\n${holder}`, at));
      await expectInvalid(new CursorCodec('another-deployment-secret-of-enough-length').encode(`test_events\n${holder}`, at));
    });

    it('is refused when issued to another key of the company, or to another company', async () => {
      const otherKey = await session.newKey([Scope.FinInvoicesWrite]);
      const res = await api.http.get('/v1/test_events').query({ limit: '2', cursor }).set('Authorization', otherKey.auth);
      expect(res.body).toMatchObject({ status: 422, detail_key: 'errors.integrations.invoices.invalid_cursor', field: 'cursor' });
      const other = await company();
      await insert(other, 5, `clock_timestamp() - n * interval '1 second'`);
      const foreign = await page(other, { limit: '2', cursor });
      expect(foreign.body).toMatchObject({ status: 422, detail_key: 'errors.integrations.invoices.invalid_cursor', field: 'cursor' });
      // Its own cursor still works.
      expect((await page(other, { limit: '2', cursor: (await page(other, { limit: '2' })).body.next_cursor! })).status).toBe(200);
    });
  });
});
