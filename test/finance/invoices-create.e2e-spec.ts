import { DataSource } from 'typeorm';
import { MAX_DESCRIPTION_LENGTH, MAX_LINES } from '../../src/finance/invoice-limits.js';
import { ReferenceDataService } from '../../src/finance/reference-data.service.js';
import { Scope } from '../../src/platform/catalog/scopes.js';
import type { TestApi } from '../support/api.js';
import { countRows, createFinanceFixture, expectProblem, type FinanceFixture, outboxEvents, startFinanceApi } from '../support/finance.js';
import { createTenantSession, type TenantSession } from '../support/tenant-session.js';

const MAX = Number.MAX_SAFE_INTEGER;

describe('POST /v1/invoices (e2e)', () => {
  let api: TestApi;
  let session: TenantSession;
  let fin: FinanceFixture;

  beforeAll(async () => {
    ({ api, session, fin } = await startFinanceApi({ scopes: [Scope.FinInvoicesWrite] }));
  });
  afterAll(() => api.close());

  const post = (body: unknown) => api.http.post('/v1/invoices').set('Authorization', session.auth).send(body as object);
  const raw = (text: string, type = 'application/json') => api.http.post('/v1/invoices').set('Authorization', session.auth).set('Content-Type', type).send(text);

  const expectRefused = async (res: Awaited<ReturnType<typeof post>>, detailKey: string) => expectProblem(res, 422, detailKey);

  /** A refusal leaves the company without a new invoice and without a new event. */
  let invoicesBefore = 0;
  let eventsBefore = 0;
  beforeEach(async () => {
    invoicesBefore = await countRows(api.app, 'invoices', session.tenant.id);
    eventsBefore = (await outboxEvents(api.app, session.tenant.id)).length;
  });
  const expectNothingWritten = async () => {
    expect(await countRows(api.app, 'invoices', session.tenant.id)).toBe(invoicesBefore);
    expect((await outboxEvents(api.app, session.tenant.id)).length).toBe(eventsBefore);
  };

  describe('success', () => {
    it('creates a draft with computed totals, Location, stored lines and exactly one fin.invoice.created event', async () => {
      const res = await post({
        customer_id: fin.customerId,
        currency: 'EUR',
        issue_date: '2026-03-01',
        due_date: '2026-03-31',
        notes: 'Thank you for your business',
        lines: [
          { description: 'Consulting', qty: 2, unit_price_minor: 1999, tax_rate: 19, product_id: fin.productId },
          { description: 'Travel', qty: 1.5, unit_price_minor: 333, tax_rate: 7 },
          { description: 'Rounding', qty: 1.005, unit_price_minor: 100, tax_rate_id: fin.taxRateId },
        ],
      });
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(`https://api.test.local/v1/invoices/${res.body.id}`);
      // 2 × 1999 = 3998 (tax 759.62 → 760); 1.5 × 333 = 499.5 → 500 (tax 35); 1.005 × 100 = 100.5 → 101 (tax 19.19 → 19)
      expect(res.body).toMatchObject({
        number: null,
        customer_id: fin.customerId,
        status: 'draft',
        currency: 'EUR',
        subtotal_minor: 4599,
        tax_minor: 814,
        total_minor: 5413,
        paid_minor: 0,
        balance_minor: 5413,
        issue_date: '2026-03-01',
        due_date: '2026-03-31',
        issued_at: null,
        voided_at: null,
        einvoice_status: 'none',
        notes: 'Thank you for your business',
        sales_order_id: null,
      });
      expect(Object.keys(res.body).sort()).toEqual(
        [
          'id', 'number', 'customer_id', 'status', 'currency', 'subtotal_minor', 'tax_minor', 'total_minor', 'paid_minor', 'balance_minor',
          'issue_date', 'due_date', 'issued_at', 'voided_at', 'einvoice_status', 'notes', 'sales_order_id', 'lines', 'created_at', 'updated_at',
        ].sort(),
      );
      expect(res.body.lines).toEqual([
        expect.objectContaining({ description: 'Consulting', qty: 2, unit_price_minor: 1999, tax_rate: 19, product_id: fin.productId, tax_rate_id: null, net_minor: 3998, tax_minor: 760, total_minor: 4758 }),
        expect.objectContaining({ description: 'Travel', qty: 1.5, unit_price_minor: 333, tax_rate: 7, product_id: null, net_minor: 500, tax_minor: 35, total_minor: 535 }),
        expect.objectContaining({ description: 'Rounding', qty: 1.005, tax_rate: 19, tax_rate_id: fin.taxRateId, net_minor: 101, tax_minor: 19, total_minor: 120 }),
      ]);
      expect(res.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);

      const [row] = await api.app.get(DataSource).query(`SELECT status, total_minor::text, tenant_id FROM invoices WHERE id = $1`, [res.body.id]);
      expect(row).toEqual({ status: 'draft', total_minor: '5413', tenant_id: session.tenant.id });
      expect(await api.app.get(DataSource).query(`SELECT qty::text, net_minor::int FROM invoice_lines WHERE invoice_id = $1 ORDER BY position`, [res.body.id])).toEqual([
        { qty: '2', net_minor: 3998 },
        { qty: '1.5', net_minor: 500 },
        { qty: '1.005', net_minor: 101 },
      ]);

      const events = (await outboxEvents(api.app, session.tenant.id)).slice(eventsBefore);
      expect(events).toHaveLength(1);
      expect(events[0].type).toBe('fin.invoice.created');
      expect(events[0].envelope).toEqual({ id: expect.any(String), type: 'fin.invoice.created', created_at: expect.any(String), data: res.body });

      const read = await api.http.get(`/v1/invoices/${res.body.id}`).set('Authorization', session.auth);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(res.body);
    });

    it('stores the most lines an invoice may have in one statement, in body order, each text exactly as sent', async () => {
      // The lines travel as one array per column: text an array literal must quote or escape.
      const texts = ['"quoted"', 'back\\slash \\" end\\', '{a,b}', 'NULL', ' padded ', 'comma, and; semicolon', "it's", '\u0001 control', 'émoji 🧾', 'x'.repeat(MAX_DESCRIPTION_LENGTH)];
      const lines = Array.from({ length: MAX_LINES }, (_, n) => ({
        description: n % texts.length === 9 ? texts[9] : `${texts[n % texts.length]}${n}${texts[n % texts.length]}`,
        qty: n % 3 === 0 ? 1.005 : n,
        unit_price_minor: n,
        tax_rate: n % 7 === 0 ? undefined : n % 2 === 0 ? 7.5 : 0,
        tax_rate_id: n % 7 === 0 ? fin.taxRateId : undefined,
        product_id: n % 5 === 0 ? fin.productId : undefined,
      }));
      const res = await post(fin.invoiceBody({ lines }));
      expect(res.status).toBe(201);
      expect(res.body.lines).toHaveLength(MAX_LINES);
      const stored: { position: number; description: string; qty: string; product_id: string | null; tax_rate_id: string | null }[] = await api.app
        .get(DataSource)
        .query(`SELECT position, description, qty::text, product_id, tax_rate_id FROM invoice_lines WHERE invoice_id = $1 ORDER BY position`, [res.body.id]);
      expect(stored).toEqual(
        lines.map((line, position) => ({
          position,
          description: line.description,
          qty: line.qty === 1.005 ? '1.005' : String(line.qty),
          product_id: line.product_id ?? null,
          tax_rate_id: line.tax_rate_id ?? null,
        })),
      );
      expect(res.body.lines.map((line: { description: string }) => line.description)).toEqual(lines.map((line) => line.description));
      expect(res.body.subtotal_minor).toBe(res.body.lines.reduce((sum: number, line: { net_minor: number }) => sum + line.net_minor, 0));
    });

    it('defaults issue_date to today (UTC) and due_date to 14 days later', async () => {
      const res = await post(fin.invoiceBody());
      expect(res.status).toBe(201);
      const today = new Date().toISOString().slice(0, 10);
      const due = new Date(`${today}T00:00:00Z`);
      due.setUTCDate(due.getUTCDate() + 14);
      expect(res.body).toMatchObject({ issue_date: today, due_date: due.toISOString().slice(0, 10), notes: null });
    });

    it('defaults due_date from a given issue_date', async () => {
      const res = await post(fin.invoiceBody({ issue_date: '2024-02-20' }));
      expect(res.body).toMatchObject({ issue_date: '2024-02-20', due_date: '2024-03-05' });
    });

    it('accepts tax_rate equal to the rate of tax_rate_id, zero amounts and notes of exactly 2,000 characters', async () => {
      const res = await post(
        fin.invoiceBody({ notes: 'n'.repeat(2000), lines: [fin.line({ tax_rate: 19.0, tax_rate_id: fin.taxRateId }), fin.line({ qty: 0, unit_price_minor: 0, tax_rate: 0 })] }),
      );
      expect(res.status).toBe(201);
      expect(res.body.total_minor).toBe(4758);
    });

    it('accepts the largest amounts whose total stays within 2^53 − 1', async () => {
      const res = await post(fin.invoiceBody({ lines: [fin.line({ qty: 1, unit_price_minor: MAX, tax_rate: 0 })] }));
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ subtotal_minor: MAX, total_minor: MAX, balance_minor: MAX });
    });
  });

  describe('invalid_body', () => {
    it.each([
      ['an array', '[]'],
      ['null', 'null'],
      ['a string', '"invoice"'],
      ['a number', '42'],
      ['a boolean', 'true'],
    ])('refuses %s', async (_, text) => {
      await expectRefused(await raw(text), 'errors.integrations.invoices.invalid_body');
      await expectNothingWritten();
    });

    it('refuses a missing body with invalid_body, also one of no bytes declared JSON, and a non-JSON body with 415', async () => {
      await expectRefused(await api.http.post('/v1/invoices').set('Authorization', session.auth), 'errors.integrations.invoices.invalid_body');
      await expectRefused(await raw(''), 'errors.integrations.invoices.invalid_body');
      expectProblem(await raw('customer_id=1', 'text/plain'), 415, 'errors.common.unsupported_media_type');
      await expectNothingWritten();
    });
  });

  describe('required', () => {
    it.each(['customer_id', 'currency', 'lines'])('names %s when it is missing', async (member) => {
      const body = fin.invoiceBody();
      delete body[member];
      const problem = await expectRefused(await post(body), 'errors.integrations.invoices.required');
      expect(problem).toMatchObject({ field: member, code: 'required', type: 'https://api.test.local/errors/validation' });
      await expectNothingWritten();
    });

    it('counts null as missing and names the first of several', async () => {
      const problem = await expectRefused(await post({ customer_id: null, lines: null }), 'errors.integrations.invoices.required');
      expect(problem.field).toBe('customer_id');
      expect((problem.errors as { path: string }[]).map((e) => e.path)).toEqual(['customer_id', 'currency', 'lines']);
    });
  });

  describe('line_invalid', () => {
    it.each([
      ['a line that is not an object', ['consulting'], 'lines[0]', 'not_an_object'],
      ['a null line', [null], 'lines[0]', 'not_an_object'],
      ['a negative qty', [{ description: 'd', qty: -1, unit_price_minor: 1, tax_rate: 0 }], 'lines[0].qty', 'negative'],
      ['a string qty', [{ description: 'd', qty: '1', unit_price_minor: 1, tax_rate: 0 }], 'lines[0].qty', 'not_a_number'],
      ['a missing qty', [{ description: 'd', unit_price_minor: 1, tax_rate: 0 }], 'lines[0].qty', 'required'],
      ['a qty over 1,000,000,000', [{ description: 'd', qty: 1000000001, unit_price_minor: 1, tax_rate: 0 }], 'lines[0].qty', 'out_of_range'],
      ['a negative price', [{ description: 'd', qty: 1, unit_price_minor: -5, tax_rate: 0 }], 'lines[0].unit_price_minor', 'negative'],
      ['a non-integer price', [{ description: 'd', qty: 1, unit_price_minor: 9.99, tax_rate: 0 }], 'lines[0].unit_price_minor', 'not_an_integer'],
      ['a non-numeric price', [{ description: 'd', qty: 1, unit_price_minor: [1], tax_rate: 0 }], 'lines[0].unit_price_minor', 'not_a_number'],
      ['a price over 2^53 − 1', [{ description: 'd', qty: 1, unit_price_minor: 2 ** 53, tax_rate: 0 }], 'lines[0].unit_price_minor', 'out_of_range'],
      ['a negative tax rate', [{ description: 'd', qty: 1, unit_price_minor: 1, tax_rate: -19 }], 'lines[0].tax_rate', 'negative'],
      ['a non-numeric tax rate', [{ description: 'd', qty: 1, unit_price_minor: 1, tax_rate: '19%' }], 'lines[0].tax_rate', 'not_a_number'],
      ['a tax rate over 100', [{ description: 'd', qty: 1, unit_price_minor: 1, tax_rate: 101 }], 'lines[0].tax_rate', 'out_of_range'],
      ['no tax rate and no tax_rate_id', [{ description: 'd', qty: 1, unit_price_minor: 1 }], 'lines[0].tax_rate', 'required'],
      ['qty × price over 2^53 − 1', [{ description: 'd', qty: 2, unit_price_minor: MAX, tax_rate: 0 }], 'lines[0]', 'out_of_range'],
      ['the second line', [{ description: 'd', qty: 1, unit_price_minor: 1, tax_rate: 0 }, { description: 'd', qty: -1, unit_price_minor: 1, tax_rate: 0 }], 'lines[1].qty', 'negative'],
    ])('refuses %s', async (_, lines, field, code) => {
      const problem = await expectRefused(await post(fin.invoiceBody({ lines })), 'errors.integrations.invoices.line_invalid');
      expect(problem).toMatchObject({ field, code });
      await expectNothingWritten();
    });

    it('refuses a qty that JSON turns into Infinity', async () => {
      const text = JSON.stringify(fin.invoiceBody()).replace('"qty":2', '"qty":1e400');
      expect(await expectRefused(await raw(text), 'errors.integrations.invoices.line_invalid')).toMatchObject({ field: 'lines[0].qty', code: 'out_of_range' });
    });

    it('refuses a tax_rate that contradicts its tax_rate_id', async () => {
      const problem = await expectRefused(await post(fin.invoiceBody({ lines: [fin.line({ tax_rate: 7, tax_rate_id: fin.taxRateId })] })), 'errors.integrations.invoices.line_invalid');
      expect(problem).toMatchObject({ field: 'lines[0].tax_rate', code: 'tax_rate_conflict' });
      await expectNothingWritten();
    });

    it('comes before validation_failed', async () => {
      await expectRefused(await post(fin.invoiceBody({ colour: 'red', lines: [fin.line({ qty: -1 })] })), 'errors.integrations.invoices.line_invalid');
    });
  });

  describe('validation_failed', () => {
    const errorsOf = async (body: unknown) => {
      const problem = await expectRefused(await post(body), 'errors.integrations.invoices.validation_failed');
      await expectNothingWritten();
      return (problem.errors as { path: string; code: string; message: string }[]).map(({ path, code, message }) => {
        expect(typeof message).toBe('string');
        return `${path}:${code}`;
      });
    };

    it('refuses an unknown member at body level', async () => {
      expect(await errorsOf(fin.invoiceBody({ status: 'paid' }))).toEqual(['status:unknown_field']);
    });

    it('refuses an unknown member at line level with its path', async () => {
      expect(await errorsOf(fin.invoiceBody({ lines: [fin.line(), fin.line({ colour: 'red' })] }))).toEqual(['lines[1].colour:unknown_field']);
    });

    it.each([
      [{ currency: 'eur' }, 'currency:invalid_format'],
      [{ currency: 'EURO' }, 'currency:invalid_format'],
      [{ currency: 978 }, 'currency:invalid_type'],
      [{ customer_id: 'acme' }, 'customer_id:invalid_format'],
      [{ issue_date: '2026/03/01' }, 'issue_date:invalid_format'],
      [{ issue_date: '2026-02-29' }, 'issue_date:invalid_date'],
      [{ due_date: '2026-04-31' }, 'due_date:invalid_date'],
      [{ due_date: 20260501 }, 'due_date:invalid_type'],
      [{ issue_date: '2026-03-02', due_date: '2026-03-01' }, 'due_date:due_before_issue'],
      [{ notes: 'n'.repeat(2001) }, 'notes:too_long'],
      [{ lines: [] }, 'lines:min_items'],
      [{ lines: 'one' }, 'lines:invalid_type'],
    ])('refuses %p', async (overrides, expected) => {
      expect(await errorsOf(fin.invoiceBody(overrides))).toEqual([expected]);
    });

    it('checks a given due_date against the default issue_date (today)', async () => {
      expect(await errorsOf(fin.invoiceBody({ due_date: '2000-01-01' }))).toEqual(['due_date:due_before_issue']);
    });

    it('lists all faults at once', async () => {
      expect(await errorsOf(fin.invoiceBody({ currency: 'eu', notes: 5, x: 1 }))).toEqual(['x:unknown_field', 'currency:invalid_format', 'notes:invalid_type']);
    });
  });

  describe('currency_not_enabled', () => {
    it('refuses a well-formed currency the company has not enabled, naming it', async () => {
      const problem = await expectRefused(await post(fin.invoiceBody({ currency: 'USD' })), 'errors.finance.validation.currency_not_enabled');
      expect(problem.currency).toBe('USD');
      await expectNothingWritten();
    });
  });

  describe('invalid_reference', () => {
    let other: { customerId: string; productId: string; taxRateId: string };
    beforeAll(async () => {
      const otherSession = await createTenantSession(api.app);
      other = await createFinanceFixture(api.app, otherSession.tenant.id);
    });

    it.each([
      ['an unknown customer', () => ({ customer_id: '00000000-0000-4000-8000-000000000000' }), 'customer_id'],
      ["another company's customer", () => ({ customer_id: other.customerId }), 'customer_id'],
      ["another company's product", () => ({ lines: [fin.line(), fin.line({ product_id: other.productId })] }), 'lines[1].product_id'],
      ["another company's tax rate", () => ({ lines: [fin.line({ tax_rate: undefined, tax_rate_id: other.taxRateId })] }), 'lines[0].tax_rate_id'],
    ])('refuses %s', async (_, overrides, field) => {
      const problem = await expectRefused(await post(fin.invoiceBody(overrides())), 'errors.common.validation.invalid_reference');
      expect(problem.field).toBe(field);
      await expectNothingWritten();
    });

    it('names the first fault in the order currency, customer, products, tax rates, all read in one statement', async () => {
      const unknown = '00000000-0000-4000-8000-000000000000';
      const lines = [fin.line({ tax_rate: undefined, tax_rate_id: other.taxRateId }), fin.line({ product_id: other.productId })];
      await expectRefused(await post(fin.invoiceBody({ currency: 'USD', customer_id: unknown, lines })), 'errors.finance.validation.currency_not_enabled');
      const customer = await expectRefused(await post(fin.invoiceBody({ customer_id: unknown, lines })), 'errors.common.validation.invalid_reference');
      expect(customer.field).toBe('customer_id');
      const product = await expectRefused(await post(fin.invoiceBody({ lines })), 'errors.common.validation.invalid_reference');
      expect(product.field).toBe('lines[1].product_id');
      const firstProduct = await expectRefused(
        await post(fin.invoiceBody({ lines: [fin.line({ product_id: other.productId }), fin.line(), fin.line({ product_id: unknown })] })),
        'errors.common.validation.invalid_reference',
      );
      expect(firstProduct.field).toBe('lines[0].product_id');
      const taxRate = await expectRefused(await post(fin.invoiceBody({ lines: [lines[0], fin.line({ product_id: fin.productId })] })), 'errors.common.validation.invalid_reference');
      expect(taxRate.field).toBe('lines[0].tax_rate_id');
      await expectNothingWritten();
    });

    it('uses the rate of a tax rate record of this company when tax_rate is absent', async () => {
      const sevenPercent = await api.app.get(ReferenceDataService).createTaxRate(session.tenant.id, '7.5');
      const res = await post(fin.invoiceBody({ lines: [{ description: 'd', qty: 1, unit_price_minor: 1000, tax_rate_id: sevenPercent.id }] }));
      expect(res.status).toBe(201);
      expect(res.body.lines[0]).toMatchObject({ tax_rate: 7.5, tax_minor: 75, tax_rate_id: sevenPercent.id });
    });
  });

  describe('create_failed', () => {
    it('refuses an invoice whose total would exceed 2^53 − 1', async () => {
      const problem = await expectRefused(
        await post(fin.invoiceBody({ lines: [fin.line({ qty: 1, unit_price_minor: MAX, tax_rate: 0 }), fin.line({ qty: 1, unit_price_minor: 1, tax_rate: 0 })] })),
        'errors.integrations.invoices.create_failed',
      );
      expect(problem.code).toBe('total_out_of_range');
      await expectNothingWritten();
    });

    it('counts tax towards the limit', async () => {
      await expectRefused(await post(fin.invoiceBody({ lines: [fin.line({ qty: 1, unit_price_minor: MAX, tax_rate: 1 })] })), 'errors.integrations.invoices.create_failed');
    });
  });

  it('needs int:fin.invoices:write', async () => {
    const reader = await session.newKey([Scope.FinInvoicesRead]);
    const res = await api.http.post('/v1/invoices').set('Authorization', reader.auth).send(fin.invoiceBody());
    expect(expectProblem(res, 403, 'errors.integrations.missing_scope').missing_scope).toBe('int:fin.invoices:write');
    await expectNothingWritten();
  });
});
