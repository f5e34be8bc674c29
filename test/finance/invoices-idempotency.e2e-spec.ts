import { Scope } from '../../src/platform/catalog/scopes.js';
import type { TestApi } from '../support/api.js';
import { countRows, expectProblem, type FinanceFixture, outboxEvents, startFinanceApi } from '../support/finance.js';
import type { TenantSession } from '../support/tenant-session.js';

/** Idempotency-Key on the invoice writes (spec section 8), on the real database. */
describe('invoice writes with Idempotency-Key (e2e)', () => {
  let api: TestApi;
  let session: TenantSession;
  let fin: FinanceFixture;

  beforeAll(async () => {
    ({ api, session, fin } = await startFinanceApi({ scopes: [Scope.FinInvoicesWrite] }));
  });
  afterAll(() => api.close());

  let sequence = 0;
  const newKey = () => `invoice-test-${Date.now()}-${(sequence += 1)}`;
  const post = (key: string, body: unknown) =>
    api.http.post('/v1/invoices').set('Authorization', session.auth).set('Idempotency-Key', key).set('Content-Type', 'application/json').send(JSON.stringify(body));
  const invoices = () => countRows(api.app, 'invoices', session.tenant.id);
  const createdEvents = async () => (await outboxEvents(api.app, session.tenant.id)).filter((e) => e.type === 'fin.invoice.created').length;

  describe('POST /v1/invoices', () => {
    it('replays the first answer, status, body and Location, without creating a second invoice or event', async () => {
      const key = newKey();
      const body = fin.invoiceBody({ notes: 'replay me' });
      const first = await post(key, body);
      expect(first.status).toBe(201);
      expect(first.headers['idempotency-replayed']).toBeUndefined();
      const [count, events] = [await invoices(), await createdEvents()];

      const second = await post(key, body);
      expect(second.status).toBe(201);
      expect(second.headers['idempotency-replayed']).toBe('true');
      expect(second.headers.location).toBe(first.headers.location);
      expect(second.body).toEqual(first.body);
      expect(await invoices()).toBe(count);
      expect(await createdEvents()).toBe(events);
    });

    it('treats a body with members in another order, at body and line level, as the same request', async () => {
      const key = newKey();
      const first = await post(key, { customer_id: fin.customerId, currency: 'EUR', lines: [{ description: 'A', qty: 1, unit_price_minor: 100, tax_rate: 19 }] });
      const count = await invoices();
      const reordered = await post(key, { lines: [{ tax_rate: 19, unit_price_minor: 100, qty: 1, description: 'A' }], currency: 'EUR', customer_id: fin.customerId });
      expect(reordered.status).toBe(201);
      expect(reordered.headers['idempotency-replayed']).toBe('true');
      expect(reordered.body.id).toBe(first.body.id);
      expect(await invoices()).toBe(count);
    });

    it('answers 409 body_mismatch for the same key with a different body', async () => {
      const key = newKey();
      expect((await post(key, fin.invoiceBody({ notes: 'one' }))).status).toBe(201);
      const count = await invoices();
      const res = await post(key, fin.invoiceBody({ notes: 'two' }));
      const problem = expectProblem(res, 409, 'errors.idempotency.body_mismatch');
      expect(problem.type).toBe('https://api.test.local/errors/idempotency-conflict');
      expect(await invoices()).toBe(count);
    });

    it('answers 409 body_mismatch when a number beyond the double range replaces a null', async () => {
      const key = newKey();
      const first = await post(key, fin.invoiceBody({ notes: null }));
      expect(first.status).toBe(201);
      const out = JSON.stringify(fin.invoiceBody({ notes: null })).replace('"notes":null', '"notes":1e999');
      const res = await api.http.post('/v1/invoices').set('Authorization', session.auth).set('Idempotency-Key', key).set('Content-Type', 'application/json').send(out);
      expectProblem(res, 409, 'errors.idempotency.body_mismatch');
      expect(res.headers['idempotency-replayed']).toBeUndefined();
    });

    it('runs concurrent requests with one key exactly once: one invoice row, one outbox event', async () => {
      const key = newKey();
      const body = fin.invoiceBody({ notes: 'concurrent' });
      const [count, events] = [await invoices(), await createdEvents()];
      const answers = await Promise.all(Array.from({ length: 8 }, () => post(key, body)));
      const created = answers.filter((res) => res.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(new Set(created.map((res) => res.body.id)).size).toBe(1);
      for (const res of answers.filter((r) => r.status !== 201)) expectProblem(res, 409, 'errors.platform.idempotency.in_progress');
      expect(await invoices()).toBe(count + 1);
      expect(await createdEvents()).toBe(events + 1);
      expect((await post(key, body)).body.id).toBe(created[0].body.id);
    });

    it('replays a stored 422 refusal, and does not keep an invalid_reference refusal', async () => {
      const key = newKey();
      const invalid = fin.invoiceBody({ currency: 'eur' });
      expectProblem(await post(key, invalid), 422, 'errors.integrations.invoices.validation_failed');
      const replay = await post(key, invalid);
      expectProblem(replay, 422, 'errors.integrations.invoices.validation_failed');
      expect(replay.headers['idempotency-replayed']).toBe('true');

      const unknownCustomer = newKey();
      const body = fin.invoiceBody({ customer_id: '00000000-0000-4000-8000-000000000000' });
      expectProblem(await post(unknownCustomer, body), 422, 'errors.common.validation.invalid_reference');
      const again = await post(unknownCustomer, body);
      expectProblem(again, 422, 'errors.common.validation.invalid_reference');
      expect(again.headers['idempotency-replayed']).toBeUndefined();
    });

    it('keeps keys apart per API key', async () => {
      const key = newKey();
      const other = await session.newKey([Scope.FinInvoicesWrite]);
      const body = fin.invoiceBody();
      const first = await post(key, body);
      const count = await invoices();
      const res = await api.http.post('/v1/invoices').set('Authorization', other.auth).set('Idempotency-Key', key).send(body);
      expect(res.status).toBe(201);
      expect(res.body.id).not.toBe(first.body.id);
      expect(await invoices()).toBe(count + 1);
    });
  });

  describe('PATCH and void', () => {
    it('replays a PATCH without a second fin.invoice.updated', async () => {
      const draft = await post(newKey(), fin.invoiceBody());
      const key = newKey();
      const patch = () => api.http.patch(`/v1/invoices/${draft.body.id}`).set('Authorization', session.auth).set('Idempotency-Key', key).send({ notes: 'changed' });
      const first = await patch();
      expect(first.status).toBe(200);
      const second = await patch();
      expect(second.headers['idempotency-replayed']).toBe('true');
      expect(second.body).toEqual(first.body);
      const updates = (await outboxEvents(api.app, session.tenant.id)).filter((e) => e.type === 'fin.invoice.updated' && (e.envelope.data as { id: string }).id === draft.body.id);
      expect(updates).toHaveLength(1);
    });

    it('replays a void as 200 instead of invalid_invoice_status_for_void', async () => {
      const draft = await post(newKey(), fin.invoiceBody());
      await fin.issue(draft.body.id);
      const key = newKey();
      const voidIt = () => api.http.post(`/v1/invoices/${draft.body.id}/void`).set('Authorization', session.auth).set('Idempotency-Key', key).send({ reason: 'dup' });
      const first = await voidIt();
      expect(first.status).toBe(200);
      const second = await voidIt();
      expect(second.status).toBe(200);
      expect(second.headers['idempotency-replayed']).toBe('true');
      expect(second.body).toEqual(first.body);
      expectProblem(
        await api.http.post(`/v1/invoices/${draft.body.id}/void`).set('Authorization', session.auth).send({ reason: 'dup' }),
        422,
        'errors.finance.validation.invalid_invoice_status_for_void',
      );
    });
  });
});
