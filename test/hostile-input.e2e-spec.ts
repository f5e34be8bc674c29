import { type AddressInfo, connect } from 'node:net';
import type { DataSource } from 'typeorm';
import { Scope } from '../src/platform/catalog/scopes.js';
import type { TestApi } from './support/api.js';
import { countRows, expectProblem, type FinanceFixture, startFinanceApi } from './support/finance.js';
import type { TenantSession } from './support/tenant-session.js';
import { waitFor } from './support/wait-for.js';

const INVALID_INPUT = 'errors.common.validation.invalid_input';

/** Input a hostile integrator sends: each is answered as a 4xx problem, never a 5xx, and changes nothing. */
describe('hostile input (e2e)', () => {
  let api: TestApi;
  let session: TenantSession;
  let fin: FinanceFixture;
  let db: DataSource;

  beforeAll(async () => {
    ({ api, session, fin, db } = await startFinanceApi({ scopes: [Scope.FinInvoicesWrite] }));
  });
  afterAll(() => api.close());

  const post = (path: string) => api.http.post(path).set('Authorization', session.auth);
  const invoices = () => countRows(api.app, 'invoices', session.tenant.id);
  const issuedInvoice = async (): Promise<string> => {
    const created = await post('/v1/invoices').send(fin.invoiceBody());
    await fin.issue(created.body.id);
    return created.body.id as string;
  };

  describe('deeply nested bodies', () => {
    it('answers 422 invalid_input (max_depth) to a body nested 3,000 deep sent with an Idempotency-Key', async () => {
      const before = await invoices();
      const deep = `${'['.repeat(3000)}${']'.repeat(3000)}`;
      const res = await post('/v1/invoices').set('Idempotency-Key', 'deep-1').set('Content-Type', 'application/json').send(`{"notes":${deep}}`);
      expect(expectProblem(res, 422, INVALID_INPUT)).toMatchObject({ code: 'max_depth' });
      expect(await invoices()).toBe(before);
      expect(await db.query(`SELECT 1 FROM idempotency_keys WHERE key = 'deep-1'`)).toEqual([]);
    });

    it('still reads a body nested 64 deep (the route answers it)', async () => {
      const res = await post('/v1/invoices').set('Content-Type', 'application/json').send(`{"notes":${'['.repeat(63)}${']'.repeat(63)}}`);
      expectProblem(res, 422, 'errors.integrations.invoices.required');
    });
  });

  describe('characters no text can hold', () => {
    // U+0000 cannot be stored; a lone surrogate (JSON.stringify writes it as the escape `\ud800`:
    // legal JSON, no character) would be stored as U+FFFD, a text other than the one sent.
    it.each([
      ['notes', (body: Record<string, unknown>) => ({ ...body, notes: 'a\u0000b' }), 'invalid_character'],
      ['lines[0].description', (body: Record<string, unknown>) => ({ ...body, lines: [fin.line({ description: 'x\u0000' })] }), 'invalid_character'],
      ['x\u0000y', (body: Record<string, unknown>) => ({ ...body, 'x\u0000y': 1 }), 'invalid_character'],
      ['notes', (body: Record<string, unknown>) => ({ ...body, notes: 'a\ud800b' }), 'unpaired_surrogate'],
      ['lines[0].description', (body: Record<string, unknown>) => ({ ...body, lines: [fin.line({ description: 'x\udfff' })] }), 'unpaired_surrogate'],
      ['x\udc00', (body: Record<string, unknown>) => ({ ...body, 'x\udc00': 1 }), 'unpaired_surrogate'],
    ])('answers 422 invalid_input naming %j on create, and stores nothing', async (field, change, code) => {
      const before = await invoices();
      const res = await post('/v1/invoices').send(change(fin.invoiceBody()));
      expect(expectProblem(res, 422, INVALID_INPUT)).toMatchObject({ field, code });
      expect(await invoices()).toBe(before);
    });

    it.each([
      ['Latin-1 text', Buffer.from('{"notes":"Müller"}', 'latin1')],
      ['a lone continuation byte', Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0x80, 0x22, 0x7d])],
      ['an overlong encoding of "/"', Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d])],
    ])('answers a body that is not UTF-8 (%s) as one that is no JSON object, 422 invalid_body, rather than storing U+FFFD in its place', async (_case, bytes) => {
      const before = await invoices();
      for (const type of ['application/json', 'application/json; charset=utf-8']) {
        const res = await post('/v1/invoices').set('Content-Type', type).serialize(() => bytes as never).send({});
        expect(expectProblem(res, 422, 'errors.integrations.invoices.invalid_body').detail).toMatch(/not valid UTF-8/);
      }
      expect(await invoices()).toBe(before);
    });

    it('takes a character outside the BMP, sent as an escaped surrogate pair, and stores it as sent', async () => {
      const body = JSON.stringify({ ...fin.invoiceBody(), notes: 'rocket' }).replace('"rocket"', '"rocket \\ud83d\\ude80"');
      const res = await post('/v1/invoices').set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(201);
      expect((await db.query(`SELECT notes FROM invoices WHERE id = $1`, [res.body.id]))[0].notes).toBe('rocket \u{1f680}');
    });

    it('answers 422 invalid_input naming reason on void, and leaves the invoice issued', async () => {
      const id = await issuedInvoice();
      const res = await post(`/v1/invoices/${id}/void`).send({ reason: 'oops\u0000' });
      expect(expectProblem(res, 422, INVALID_INPUT)).toMatchObject({ field: 'reason', code: 'invalid_character' });
      expect((await db.query(`SELECT status FROM invoices WHERE id = $1`, [id]))[0].status).toBe('issued');
    });
  });

  describe('media types', () => {
    it.each([
      ['text/plain', 'reason=wrong customer', /text\/plain/],
      ['application/x-www-form-urlencoded', 'reason=wrong+customer', /application\/x-www-form-urlencoded/],
    ])('answers 415 to a void with a %s body, and does not void', async (type, body, detail) => {
      const id = await issuedInvoice();
      const res = await post(`/v1/invoices/${id}/void`).set('Content-Type', type).send(body);
      expect(expectProblem(res, 415, 'errors.common.unsupported_media_type').detail).toMatch(detail);
      expect((await db.query(`SELECT status FROM invoices WHERE id = $1`, [id]))[0].status).toBe('issued');
    });

    it('answers 415 to a create with a text/plain JSON-looking body, saying what was sent', async () => {
      const res = await post('/v1/invoices').set('Content-Type', 'text/plain').send(JSON.stringify(fin.invoiceBody()));
      expect(expectProblem(res, 415, 'errors.common.unsupported_media_type').detail).toBe(
        'The request body is text/plain; this operation reads application/json.',
      );
    });

    it('judges a JSON body only on a route that reads it: an unknown path or method stays a 404 or 405, and a GET ignores it', async () => {
      const json = (request: ReturnType<typeof post>, body: string) => request.set('Content-Type', 'application/json').send(body);
      // Before: 422 malformed_json, 422 and 413, judged before routing.
      expectProblem(await json(post('/v1/nowhere'), '{'), 404, 'errors.common.route_not_found');
      expectProblem(await json(post('/v1/openapi.json'), '{'), 405, 'errors.common.method_not_allowed');
      expectProblem(await json(api.http.put('/v1/invoices').set('Authorization', session.auth), `"${'x'.repeat(2_000_000)}"`), 405, 'errors.common.method_not_allowed');
      expect((await api.http.get('/v1/invoices?limit=1').set('Authorization', session.auth).set('Content-Type', 'application/json').send('{')).status).toBe(200);
    });

    it('still voids with no body at all, and keeps 404 for unknown paths', async () => {
      const id = await issuedInvoice();
      expect((await post(`/v1/invoices/${id}/void`)).status).toBe(200);
      expectProblem(await post('/v1/nowhere').set('Content-Type', 'text/plain').send('x'), 404, 'errors.common.route_not_found');
    });
  });

  describe('routing is case-sensitive', () => {
    it('answers 404 to /V1/INVOICES, so one Idempotency-Key cannot create two invoices', async () => {
      const before = await invoices();
      const body = fin.invoiceBody();
      const upper = await post('/V1/INVOICES').set('Idempotency-Key', 'case-1').send(body);
      expectProblem(upper, 404, 'errors.common.route_not_found');
      const lower = await post('/v1/invoices').set('Idempotency-Key', 'case-1').send(body);
      expect(lower.status).toBe(201);
      expect(await invoices()).toBe(before + 1);
    });
  });

  describe('query parameters', () => {
    it.each([
      ['limit[]=5', 'limit'],
      ['cursor[]=x', 'cursor'],
      ['limit[a]=5', 'limit'],
      ['limit=5&limit=6', 'limit'],
      ['cursor=a&cursor=b', 'cursor'],
      ['foo=1&foo=2', 'foo'],
    ])('answers 422 invalid_input to ?%s', async (query, field) => {
      const res = await api.http.get(`/v1/invoices?${query}`).set('Authorization', session.auth);
      expect(expectProblem(res, 422, INVALID_INPUT)).toMatchObject({ field });
    });

    it.each(['%FF', '%C0%AF', '%ED%A0%80'])('answers a path id that is not percent-encoded UTF-8 (%s) 422 invalid_input, invalid_format', async (id) => {
      const res = await api.http.get(`/v1/invoices/${id}`).set('Authorization', session.auth);
      // Before: the bare "Invalid input", with neither field nor code.
      expect(expectProblem(res, 422, INVALID_INPUT)).toMatchObject({ detail: 'The path is not valid percent-encoded UTF-8.', field: 'path', code: 'invalid_format' });
    });

    it('reads every parameter, however many: a bad limit after 1,000 others is still refused', async () => {
      const junk = Array.from({ length: 1000 }, (_, index) => `a${index}=1`).join('&');
      const res = await api.http.get(`/v1/invoices?${junk}&limit=abc`).set('Authorization', session.auth);
      // Before: the 1,001st parameter was dropped (querystring's maxKeys), and the page answered 200.
      expect(expectProblem(res, 422, INVALID_INPUT)).toMatchObject({ field: 'limit' });
    });
  });

  describe('requests the HTTP server answers before any route', () => {
    /** The raw answer to `request`, as `[head, body]`, and the status line's code. */
    const raw = async (request: string): Promise<{ status: number; head: string; body: Record<string, unknown> }> => {
      const { port } = api.app.getHttpServer().address() as AddressInfo;
      const text = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(request));
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString('utf8')));
        socket.on('error', reject);
        socket.on('close', () => resolve(received));
      });
      const [head, body] = text.split('\r\n\r\n');
      expect(head).toMatch(/\r\nContent-Type: application\/problem\+json/i);
      expect(head).toMatch(/\r\nx-trace-id: [0-9a-f]{32}/i);
      // As every answer: data, never a page, never stored (a 405 or 501 is cacheable by default).
      expect(head).toMatch(/\r\nX-Content-Type-Options: nosniff/i);
      expect(head).toMatch(/\r\nCache-Control: no-store/i);
      return { status: Number(head.split(' ')[1]), head, body: JSON.parse(body) as Record<string, unknown> };
    };

    it('answers CONNECT 405 method_not_allowed as a problem', async () => {
      const answer = await raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
      expect([answer.status, answer.body]).toEqual([405, expect.objectContaining({ status: 405, detail_key: 'errors.common.method_not_allowed' })]);
    });

    // Before: Node's own bare 417 and 400, with no body and no trace id.
    it('answers an Expect other than 100-continue 417 expectation_failed as a problem, running nothing', async () => {
      const before = await invoices();
      const body = JSON.stringify(fin.invoiceBody());
      const answer = await raw(
        `POST /v1/invoices HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${session.auth}\r\nContent-Type: application/json\r\nExpect: foo\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      expect([answer.status, answer.body]).toEqual([417, expect.objectContaining({ status: 417, detail_key: 'errors.common.expectation_failed', field: 'Expect' })]);
      expect(await invoices()).toBe(before);
    });

    it('answers an HTTP/1.1 request without Host 400 malformed_request as a problem', async () => {
      const answer = await raw(`GET /v1/invoices HTTP/1.1\r\nAuthorization: ${session.auth}\r\n\r\n`);
      expect([answer.status, answer.body]).toEqual([400, expect.objectContaining({ status: 400, detail_key: 'errors.common.malformed_request' })]);
    });

    // Before: none of them had a log line or a count (a 501 among them, which operations.md logs at error).
    it('logs and counts each of them, as every answer: one line per request', async () => {
      const count = async (method: string, status: number) => {
        const series = new RegExp(`http_request_duration_seconds_count\\{method="${method}",route="unmatched",status="${status}"\\} (\\d+)`);
        return Number((await api.http.get('/metrics')).text.match(series)?.[1] ?? 0);
      };
      const cases: [string, string, number][] = [
        ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 'CONNECT', 405],
        ['POST /v1/invoices HTTP/1.1\r\nHost: localhost\r\nExpect: foo\r\nContent-Length: 2\r\n\r\n{}', 'POST', 417],
        ['POST /v1/invoices HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n', 'POST', 501],
        // Counted 400 before: the parser's own failure of it was answered and counted too.
        ['PUT /v1/invoices HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip\r\n\r\n', 'PUT', 501],
        ['DELETE /v1/invoices HTTP/1.1\r\nHost: localhost\r\nHost: localhost\r\n\r\n', 'DELETE', 400],
        [`GET /v1/invoices HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 'unknown', 431],
      ];
      for (const [request, method, status] of cases) {
        const before = await count(method, status);
        expect((await raw(request)).status).toBe(status);
        await waitFor(async () => (await count(method, status)) === before + 1, 5000, `${method} ${status} counted`);
      }
    });
  });

  describe('security headers', () => {
    it('marks every answer nosniff and keeps tenant data out of caches', async () => {
      for (const res of [await api.http.get('/v1/invoices').set('Authorization', session.auth), await api.http.get('/v1/invoices')]) {
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
      }
      const spec = await api.http.get('/v1/openapi.json');
      expect(spec.headers['x-content-type-options']).toBe('nosniff');
      expect(spec.headers['cache-control']).toBe('public, max-age=300');
    });

    it('gives /docs a policy that loads Swagger UI from this server only', async () => {
      const page = await api.http.get('/docs/');
      expect(page.status).toBe(200);
      const csp = page.headers['content-security-policy'];
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self' 'unsafe-inline'");
      expect(csp).toContain("connect-src 'self' https://api.test.local");
      expect(csp).not.toContain('upgrade-insecure-requests');
      // Every script the page loads is a file of this server, so script-src 'self' lets it run.
      expect(page.text).not.toMatch(/<script>[^<]/);
      for (const [, src] of page.text.matchAll(/<script src="([^"]+)"/g)) {
        expect((await api.http.get(new URL(src, 'http://x/docs/').pathname)).status).toBe(200);
      }
    });
  });
});
