import { DataSource } from 'typeorm';
import { ReferenceDataService } from '../../src/finance/reference-data.service.js';
import { Scope } from '../../src/platform/catalog/scopes.js';
import type { TestApi } from '../support/api.js';
import { expectProblem, type FinanceFixture, outboxEvents, startFinanceApi } from '../support/finance.js';
import { createTenantSession, type TenantSession } from '../support/tenant-session.js';

describe('PATCH /v1/invoices/{id} (e2e)', () => {
  let api: TestApi;
  let session: TenantSession;
  let fin: FinanceFixture;

  beforeAll(async () => {
    ({ api, session, fin } = await startFinanceApi({ scopes: [Scope.FinInvoicesWrite], currencies: ['EUR', 'USD'] }));
  });
  afterAll(() => api.close());

  const draft = async (overrides: Record<string, unknown> = {}) => {
    const res = await api.http
      .post('/v1/invoices')
      .set('Authorization', session.auth)
      .send(fin.invoiceBody({ issue_date: '2026-03-01', due_date: '2026-03-15', notes: 'first', ...overrides }));
    expect(res.status).toBe(201);
    return res.body as Record<string, unknown> & { id: string };
  };
  const patch = (id: string, body: unknown) => api.http.patch(`/v1/invoices/${id}`).set('Authorization', session.auth).send(body as object);
  const eventsOf = async (id: string) => (await outboxEvents(api.app, session.tenant.id)).filter((e) => (e.envelope.data as { id: string }).id === id);
  const stored = async (id: string) =>
    (await api.app.get(DataSource).query(`SELECT customer_id, currency, issue_date::text, due_date::text, notes FROM invoices WHERE id = $1`, [id]))[0];

  it('changes every writable field, answers 200 with the invoice and fires exactly one fin.invoice.updated', async () => {
    const invoice = await draft();
    const customer = await api.app.get(ReferenceDataService).createCustomer(session.tenant.id, 'Globex Corp');
    const res = await patch(invoice.id, { customer_id: customer.id, currency: 'USD', issue_date: '2026-04-01', due_date: '2026-04-30', notes: 'second' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: invoice.id,
      status: 'draft',
      customer_id: customer.id,
      currency: 'USD',
      issue_date: '2026-04-01',
      due_date: '2026-04-30',
      notes: 'second',
      total_minor: invoice.total_minor,
      lines: invoice.lines,
    });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(invoice.updated_at as string));
    expect(await stored(invoice.id)).toEqual({ customer_id: customer.id, currency: 'USD', issue_date: '2026-04-01', due_date: '2026-04-30', notes: 'second' });

    const events = await eventsOf(invoice.id);
    expect(events.map((e) => e.type)).toEqual(['fin.invoice.created', 'fin.invoice.updated']);
    expect(events[1].envelope.data).toEqual(res.body);
  });

  it('clears notes with null', async () => {
    const invoice = await draft();
    const res = await patch(invoice.id, { notes: null });
    expect(res.status).toBe(200);
    expect(res.body.notes).toBeNull();
    expect((await stored(invoice.id)).notes).toBeNull();
  });

  it('fires fin.invoice.updated for a PATCH whose values are the stored ones too (spec 3: any valid PATCH of a draft)', async () => {
    const invoice = await draft();
    const res = await patch(invoice.id, { notes: 'first', currency: 'EUR' });
    expect(res.status).toBe(200);
    expect({ ...res.body, updated_at: invoice.updated_at }).toEqual(invoice);
    expect(new Date(res.body.updated_at).getTime()).toBeGreaterThan(new Date(invoice.updated_at as string).getTime());
    expect((await eventsOf(invoice.id)).map((e) => e.type)).toEqual(['fin.invoice.created', 'fin.invoice.updated']);
  });

  it('checks due_date against the merged issue_date', async () => {
    const invoice = await draft();
    const problem = expectProblem(await patch(invoice.id, { issue_date: '2026-03-20' }), 422, 'errors.integrations.invoices.validation_failed');
    expect(problem.errors).toEqual([expect.objectContaining({ path: 'due_date', code: 'due_before_issue' })]);
    expectProblem(await patch(invoice.id, { due_date: '2026-02-28' }), 422, 'errors.integrations.invoices.validation_failed');
    expect((await patch(invoice.id, { issue_date: '2026-03-20', due_date: '2026-04-03' })).status).toBe(200);
  });

  it.each([
    ['lines', { lines: [] }, 'lines:unknown_field'],
    ['an unknown member', { status: 'issued' }, 'status:unknown_field'],
    ['a malformed currency', { currency: 'usd' }, 'currency:invalid_format'],
    ['a null customer_id', { customer_id: null }, 'customer_id:invalid_type'],
    ['an unreal date', { due_date: '2026-02-30' }, 'due_date:invalid_date'],
    ['notes over 2,000 characters', { notes: 'x'.repeat(2001) }, 'notes:too_long'],
  ])('refuses %s with validation_failed', async (_, body, expected) => {
    const invoice = await draft();
    const problem = expectProblem(await patch(invoice.id, body), 422, 'errors.integrations.invoices.validation_failed');
    expect((problem.errors as { path: string; code: string }[]).map((e) => `${e.path}:${e.code}`)).toEqual([expected]);
    expect(await stored(invoice.id)).toMatchObject({ notes: 'first', currency: 'EUR' });
    expect(await eventsOf(invoice.id)).toHaveLength(1);
  });

  it('answers no_writable_fields for {}', async () => {
    const invoice = await draft();
    expectProblem(await patch(invoice.id, {}), 422, 'errors.integrations.invoices.no_writable_fields');
  });

  it.each([['[]'], ['null'], ['"notes"'], ['7'], ['']])('answers invalid_body for %p', async (text) => {
    const invoice = await draft();
    const res = await api.http.patch(`/v1/invoices/${invoice.id}`).set('Authorization', session.auth).set('Content-Type', 'application/json').send(text);
    expectProblem(res, 422, 'errors.integrations.invoices.invalid_body');
  });

  it('answers update_failed once the invoice is no longer a draft', async () => {
    const invoice = await draft();
    await fin.issue(invoice.id);
    expectProblem(await patch(invoice.id, { notes: 'too late' }), 422, 'errors.integrations.invoices.update_failed');
    expect((await stored(invoice.id)).notes).toBe('first');
    expect((await eventsOf(invoice.id)).map((e) => e.type)).toEqual(['fin.invoice.created']);
  });

  it('answers currency_not_enabled for a currency the company has not enabled', async () => {
    const invoice = await draft();
    expect(expectProblem(await patch(invoice.id, { currency: 'GBP' }), 422, 'errors.finance.validation.currency_not_enabled').currency).toBe('GBP');
  });

  it("answers invalid_reference for an unknown or another company's customer", async () => {
    const invoice = await draft();
    const other = await createTenantSession(api.app);
    const foreign = await api.app.get(ReferenceDataService).createCustomer(other.tenant.id);
    for (const customerId of ['00000000-0000-4000-8000-000000000000', foreign.id]) {
      expect(expectProblem(await patch(invoice.id, { customer_id: customerId }), 422, 'errors.common.validation.invalid_reference').field).toBe('customer_id');
    }
    expect((await stored(invoice.id)).customer_id).toBe(fin.customerId);
  });

  it('answers invalid_input for a malformed id and 404 not_found for an unknown one', async () => {
    expect(expectProblem(await patch('not-a-uuid', { notes: 'x' }), 422, 'errors.common.validation.invalid_input').field).toBe('id');
    const problem = expectProblem(await patch('00000000-0000-4000-8000-000000000000', { notes: 'x' }), 404, 'errors.integrations.invoices.not_found');
    expect(problem.code).toBe('not_found');
  });

  it('needs int:fin.invoices:write', async () => {
    const invoice = await draft();
    const reader = await session.newKey([Scope.FinInvoicesRead]);
    const res = await api.http.patch(`/v1/invoices/${invoice.id}`).set('Authorization', reader.auth).send({ notes: 'x' });
    expectProblem(res, 403, 'errors.integrations.missing_scope');
  });
});
