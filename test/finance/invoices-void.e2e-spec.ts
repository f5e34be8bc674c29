import type { DataSource } from 'typeorm';
import { Scope } from '../../src/platform/catalog/scopes.js';
import type { TestApi } from '../support/api.js';
import { expectProblem, type FinanceFixture, outboxEvents, startFinanceApi } from '../support/finance.js';
import type { TenantSession } from '../support/tenant-session.js';

type Invoice = Record<string, unknown> & { id: string; total_minor: number };

describe('POST /v1/invoices/{id}/void (e2e)', () => {
  let api: TestApi;
  let session: TenantSession;
  let fin: FinanceFixture;
  let db: DataSource;

  beforeAll(async () => {
    ({ api, session, fin, db } = await startFinanceApi({ scopes: [Scope.FinInvoicesWrite] }));
  });
  afterAll(() => api.close());

  const draft = async (): Promise<Invoice> => (await api.http.post('/v1/invoices').set('Authorization', session.auth).send(fin.invoiceBody())).body;
  const issued = async (): Promise<Invoice> => {
    const invoice = await draft();
    await fin.issue(invoice.id);
    return invoice;
  };
  const voidIt = (id: string, body?: unknown) => {
    const req = api.http.post(`/v1/invoices/${id}/void`).set('Authorization', session.auth);
    return body === undefined ? req : req.send(body as object);
  };
  const eventTypes = async (id: string) =>
    (await outboxEvents(api.app, session.tenant.id)).filter((e) => (e.envelope.data as { id: string }).id === id).map((e) => e.type);
  const creditNotes = (id: string) => db.query(`SELECT number, currency, subtotal_minor::int, tax_minor::int, total_minor::int, reason FROM credit_notes WHERE invoice_id = $1`, [id]);
  const audit = (id: string) => db.query(`SELECT action, reason, api_key_id, actor FROM finance_audit_trail WHERE entity_id = $1 AND action = 'invoice.voided'`, [id]);

  async function expectVoided(invoice: Invoice, reason: string | null, res: Awaited<ReturnType<typeof voidIt>>): Promise<void> {
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: invoice.id, status: 'void', balance_minor: 0, total_minor: invoice.total_minor, number: expect.stringMatching(/^INV-\d{4}-\d{6}$/) });
    expect(Date.parse(res.body.voided_at)).not.toBeNaN();
    const [row] = await db.query(`SELECT status, balance_minor::int, voided_at FROM invoices WHERE id = $1`, [invoice.id]);
    expect(row).toMatchObject({ status: 'void', balance_minor: 0 });
    const [note] = await creditNotes(invoice.id);
    expect(note).toEqual({
      number: expect.stringMatching(/^CN-\d{4}-\d{6}$/),
      currency: 'EUR',
      subtotal_minor: res.body.subtotal_minor,
      tax_minor: res.body.tax_minor,
      total_minor: invoice.total_minor,
      reason,
    });
    expect(await audit(invoice.id)).toEqual([{ action: 'invoice.voided', reason, api_key_id: session.keyId, actor: 'api_key' }]);
    const events = (await outboxEvents(api.app, session.tenant.id)).filter((e) => e.type === 'fin.invoice.voided' && (e.envelope.data as { id: string }).id === invoice.id);
    expect(events).toHaveLength(1);
    expect(events[0].envelope.data).toEqual(res.body);
  }

  async function expectNotVoided(invoice: Invoice, status: string): Promise<void> {
    expect((await db.query(`SELECT status FROM invoices WHERE id = $1`, [invoice.id]))[0].status).toBe(status);
    expect(await creditNotes(invoice.id)).toEqual([]);
    expect(await audit(invoice.id)).toEqual([]);
    expect(await eventTypes(invoice.id)).not.toContain('fin.invoice.voided');
  }

  describe('the void matrix', () => {
    it('refuses a draft with invalid_invoice_status_for_void', async () => {
      const invoice = await draft();
      expectProblem(await voidIt(invoice.id), 422, 'errors.finance.validation.invalid_invoice_status_for_void');
      await expectNotVoided(invoice, 'draft');
    });

    it('voids an issued invoice with a reason: credit note, audit entry with the key, one event', async () => {
      const invoice = await issued();
      await expectVoided(invoice, 'Issued to the wrong customer', await voidIt(invoice.id, { reason: 'Issued to the wrong customer' }));
    });

    it('voids without a body, and with {}', async () => {
      const first = await issued();
      await expectVoided(first, null, await voidIt(first.id));
      const second = await issued();
      await expectVoided(second, null, await voidIt(second.id, {}));
    });

    it('voids an overdue invoice', async () => {
      const invoice = await issued();
      await fin.markOverdue(invoice.id);
      await expectVoided(invoice, null, await voidIt(invoice.id));
    });

    it('refuses a partial invoice with a recorded payment with void_failed', async () => {
      const invoice = await issued();
      await fin.pay(invoice.id, 1000);
      expectProblem(await voidIt(invoice.id), 422, 'errors.integrations.invoices.void_failed');
      await expectNotVoided(invoice, 'partial');
    });

    it('refuses an overdue invoice with a recorded payment with void_failed', async () => {
      const invoice = await issued();
      await fin.markOverdue(invoice.id);
      await fin.pay(invoice.id, 10);
      expectProblem(await voidIt(invoice.id), 422, 'errors.integrations.invoices.void_failed');
      await expectNotVoided(invoice, 'overdue');
    });

    it('voids once every payment is refunded', async () => {
      const invoice = await issued();
      const first = await fin.pay(invoice.id, 1000);
      const second = await fin.pay(invoice.id, 500);
      await fin.refund(first.id as string);
      expectProblem(await voidIt(invoice.id), 422, 'errors.integrations.invoices.void_failed');
      await fin.refund(second.id as string);
      await expectVoided(invoice, 'Refunded in full', await voidIt(invoice.id, { reason: 'Refunded in full' }));
    });

    it('refuses a paid invoice with invalid_invoice_status_for_void', async () => {
      const invoice = await issued();
      await fin.pay(invoice.id, invoice.total_minor);
      expectProblem(await voidIt(invoice.id), 422, 'errors.finance.validation.invalid_invoice_status_for_void');
      await expectNotVoided(invoice, 'paid');
    });

    it('refuses a void invoice with invalid_invoice_status_for_void and changes nothing', async () => {
      const invoice = await issued();
      const first = await voidIt(invoice.id, { reason: 'first' });
      expect(first.status).toBe(200);
      expectProblem(await voidIt(invoice.id, { reason: 'second' }), 422, 'errors.finance.validation.invalid_invoice_status_for_void');
      expect((await creditNotes(invoice.id)).map((n: { reason: string }) => n.reason)).toEqual(['first']);
      expect((await eventTypes(invoice.id)).filter((t) => t === 'fin.invoice.voided')).toHaveLength(1);
      const read = await api.http.get(`/v1/invoices/${invoice.id}`).set('Authorization', session.auth);
      expect(read.body).toEqual(first.body);
    });
  });

  it('lets exactly one of several concurrent voids succeed', async () => {
    const invoice = await issued();
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => voidIt(invoice.id, { reason: `attempt ${i}` })));
    expect(answers.filter((res) => res.status === 200)).toHaveLength(1);
    for (const res of answers.filter((r) => r.status !== 200)) {
      expectProblem(res, 422, 'errors.finance.validation.invalid_invoice_status_for_void');
    }
    expect(await creditNotes(invoice.id)).toHaveLength(1);
    expect(await audit(invoice.id)).toHaveLength(1);
    expect((await eventTypes(invoice.id)).filter((t) => t === 'fin.invoice.voided')).toHaveLength(1);
  });

  it('numbers credit notes gap-free per company', async () => {
    const before: { n: number }[] = await db.query(`SELECT count(*)::int AS n FROM credit_notes WHERE tenant_id = $1`, [session.tenant.id]);
    const invoices = [await issued(), await issued()];
    for (const invoice of invoices) expect((await voidIt(invoice.id)).status).toBe(200);
    const numbers = (await db.query(`SELECT number FROM credit_notes WHERE tenant_id = $1 ORDER BY number`, [session.tenant.id])).map((r: { number: string }) => Number(r.number.slice(-6)));
    expect(numbers).toEqual(Array.from({ length: before[0].n + 2 }, (_, i) => i + 1));
  });

  describe('body', () => {
    it.each([['[]'], ['"because"'], ['null'], ['1']])('refuses %s with invalid_body', async (text) => {
      const invoice = await issued();
      const res = await api.http.post(`/v1/invoices/${invoice.id}/void`).set('Authorization', session.auth).set('Content-Type', 'application/json').send(text);
      expectProblem(res, 422, 'errors.integrations.invoices.invalid_body');
      await expectNotVoided(invoice, 'issued');
    });

    it.each([
      [{ reason: 'r'.repeat(501) }, 'reason:too_long'],
      [{ reason: 42 }, 'reason:invalid_type'],
      [{ why: 'x' }, 'why:unknown_field'],
    ])('refuses %p with validation_failed', async (body, expected) => {
      const invoice = await issued();
      const problem = expectProblem(await voidIt(invoice.id, body), 422, 'errors.integrations.invoices.validation_failed');
      expect((problem.errors as { path: string; code: string }[]).map((e) => `${e.path}:${e.code}`)).toEqual([expected]);
      await expectNotVoided(invoice, 'issued');
    });

    it('accepts a reason of exactly 500 characters', async () => {
      const invoice = await issued();
      await expectVoided(invoice, 'r'.repeat(500), await voidIt(invoice.id, { reason: 'r'.repeat(500) }));
    });
  });

  it('answers invalid_input for a malformed id and 404 for an unknown one', async () => {
    expectProblem(await voidIt('1234'), 422, 'errors.common.validation.invalid_input');
    expect(expectProblem(await voidIt('00000000-0000-4000-8000-000000000000'), 404, 'errors.integrations.invoices.not_found').code).toBe('not_found');
  });

  it('needs int:fin.invoices:write', async () => {
    const invoice = await issued();
    const reader = await session.newKey([Scope.FinInvoicesRead]);
    expectProblem(await api.http.post(`/v1/invoices/${invoice.id}/void`).set('Authorization', reader.auth), 403, 'errors.integrations.missing_scope');
    await expectNotVoided(invoice, 'issued');
  });
});
