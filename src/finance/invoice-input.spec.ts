import { DomainException } from '../platform/errors/domain.exception.js';
import { validateBody } from '../platform/validation/validated-body.js';
import { CreateInvoiceDto } from './dto/create-invoice.dto.js';
import { UpdateInvoiceDto } from './dto/update-invoice.dto.js';
import { VoidInvoiceDto } from './dto/void-invoice.dto.js';
import { assertDueNotBeforeIssue, toCreateInvoiceInput, toInvoiceChanges, toVoidReason } from './invoice-input.js';
import { formatDecimal } from './invoice-totals.js';

// What the routes do with a body: the one validation path (`@ValidBody`), then the conversion.
const parseCreateInvoice = (body: unknown, today: string) => toCreateInvoiceInput(validateBody(CreateInvoiceDto, body, { today }), today);
const parseInvoiceChanges = (body: unknown) => toInvoiceChanges(validateBody(UpdateInvoiceDto, body));
const parseVoidRequest = (body: unknown) => ({ reason: toVoidReason(validateBody(VoidInvoiceDto, body)) });

const TODAY = '2026-05-16';
const CUSTOMER = '0b7c6c1e-6a55-4d0e-9d7c-0f4c6a1e2b3c';
const line = (extra: Record<string, unknown> = {}) => ({ description: 'Consulting', qty: 2, unit_price_minor: 1000, tax_rate: 19, ...extra });
const body = (extra: Record<string, unknown> = {}) => ({ customer_id: CUSTOMER, currency: 'EUR', lines: [line()], ...extra });

function problem(run: () => unknown): DomainException {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainException) return error;
    throw error;
  }
  throw new Error('expected a DomainException');
}

const create = (value: unknown) => problem(() => parseCreateInvoice(value, TODAY));

describe('parseCreateInvoice', () => {
  it('accepts a minimal body with the documented defaults', () => {
    const input = parseCreateInvoice(body(), TODAY);
    expect(input).toMatchObject({ customerId: CUSTOMER, currency: 'EUR', issueDate: TODAY, dueDate: '2026-05-30', notes: null });
    expect(input.lines).toHaveLength(1);
    expect(formatDecimal(input.lines[0].qty)).toBe('2');
    expect(input.lines[0]).toMatchObject({ description: 'Consulting', unitPriceMinor: 1000n, productId: null, taxRateId: null });
  });

  it('defaults due_date to issue_date + 14 days, across a month end', () => {
    expect(parseCreateInvoice(body({ issue_date: '2026-01-25' }), TODAY).dueDate).toBe('2026-02-08');
  });

  it('defaults due_date to at most 2999-12-31, the last date the API accepts', () => {
    expect(parseCreateInvoice(body({ issue_date: '2999-12-25' }), TODAY).dueDate).toBe('2999-12-31');
    const created = parseCreateInvoice(body({ issue_date: '2999-12-31' }), TODAY);
    expect([created.issueDate, created.dueDate]).toEqual(['2999-12-31', '2999-12-31']);
  });

  it('refuses, as due_before_issue, a due_date of the day before when the body was checked before midnight UTC and converted after', () => {
    const checked = validateBody(CreateInvoiceDto, body({ due_date: '2026-05-16' }), { today: '2026-05-16' });
    const error = problem(() => toCreateInvoiceInput(checked, '2026-05-17'));
    expect(error.errorName).toBe('InvoiceValidationFailed');
    expect(error.extras.errors).toEqual([{ path: 'due_date', code: 'due_before_issue', message: 'due_date 2026-05-16 is before issue_date 2026-05-17' }]);
  });

  it('lowercases ids', () => {
    expect(parseCreateInvoice(body({ customer_id: CUSTOMER.toUpperCase() }), TODAY).customerId).toBe(CUSTOMER);
  });

  it.each([[null], [[]], ['x'], [1], [true], [undefined]])('answers invalid_body for %p', (value) => {
    expect(create(value).definition.detailKey).toBe('errors.integrations.invoices.invalid_body');
  });

  it('answers required naming the first missing member, null counting as missing', () => {
    const error = create({ currency: 'EUR', lines: null });
    expect(error.definition.detailKey).toBe('errors.integrations.invoices.required');
    expect(error.extras.field).toBe('customer_id');
    expect(error.definition.code).toBe('required');
    expect(error.extras.errors!.map((e) => e.path)).toEqual(['customer_id', 'lines']);
  });

  it.each([
    [[5], 'lines[0]', 'not_an_object'],
    [[line({ qty: -1 })], 'lines[0].qty', 'negative'],
    [[line({ qty: '2' })], 'lines[0].qty', 'not_a_number'],
    [[line({ qty: undefined })], 'lines[0].qty', 'required'],
    [[line({ qty: 1e10 })], 'lines[0].qty', 'out_of_range'],
    [[line({ unit_price_minor: 10.5 })], 'lines[0].unit_price_minor', 'not_an_integer'],
    [[line({ unit_price_minor: -10.5 })], 'lines[0].unit_price_minor', 'negative'],
    [[line({ unit_price_minor: true })], 'lines[0].unit_price_minor', 'not_a_number'],
    [[line({ unit_price_minor: 2 ** 53 })], 'lines[0].unit_price_minor', 'out_of_range'],
    [[line({ tax_rate: -0.5 })], 'lines[0].tax_rate', 'negative'],
    [[line({ tax_rate: {} })], 'lines[0].tax_rate', 'not_a_number'],
    [[line({ tax_rate: 100.5 })], 'lines[0].tax_rate', 'out_of_range'],
    [[line({ tax_rate: undefined })], 'lines[0].tax_rate', 'required'],
    [[line({ qty: Infinity })], 'lines[0].qty', 'out_of_range'],
    [[line({ qty: 1e9, unit_price_minor: 2 ** 53 - 1 })], 'lines[0]', 'out_of_range'],
    [[line(), line({ qty: -2 }), 7], 'lines[1].qty', 'negative'],
  ])('answers line_invalid for lines %p at %s (%s)', (lines, path, code) => {
    const error = create(body({ lines }));
    expect(error.definition.detailKey).toBe('errors.integrations.invoices.line_invalid');
    expect(error.extras).toMatchObject({ field: path, code });
  });

  it('accepts a line without tax_rate when it names a tax_rate_id', () => {
    const input = parseCreateInvoice(body({ lines: [line({ tax_rate: undefined, tax_rate_id: CUSTOMER })] }), TODAY);
    expect(input.lines[0]).toMatchObject({ taxRate: null, taxRateId: CUSTOMER });
  });

  it('accepts zero amounts and fractional quantities', () => {
    const input = parseCreateInvoice(body({ lines: [line({ qty: 0.25, unit_price_minor: 0, tax_rate: 0 })] }), TODAY);
    expect(formatDecimal(input.lines[0].qty)).toBe('0.25');
  });

  const failed = (value: unknown) => {
    const error = create(value);
    expect(error.definition.detailKey).toBe('errors.integrations.invoices.validation_failed');
    return error.extras.errors!.map((e) => `${e.path}:${e.code}`);
  };

  it('lists every member fault at once, unknown members at body and line level included', () => {
    expect(
      failed(
        body({
          colour: 'red',
          currency: 'eur',
          customer_id: 'abc',
          issue_date: '2026-02-30',
          due_date: '16.05.2026',
          notes: 'x'.repeat(2001),
          lines: [line({ colour: 'blue', description: 5, product_id: 'nope', tax_rate_id: 7 })],
        }),
      ),
    ).toEqual([
      'colour:unknown_field',
      'customer_id:invalid_format',
      'currency:invalid_format',
      'lines[0].colour:unknown_field',
      'lines[0].description:invalid_type',
      'lines[0].product_id:invalid_format',
      'lines[0].tax_rate_id:invalid_type',
      'issue_date:invalid_date',
      'due_date:invalid_format',
      'notes:too_long',
    ]);
  });

  it.each([
    [{ currency: 'EURO' }, 'currency:invalid_format'],
    [{ currency: 978 }, 'currency:invalid_type'],
    [{ customer_id: 42 }, 'customer_id:invalid_type'],
    [{ lines: {} }, 'lines:invalid_type'],
    [{ lines: [] }, 'lines:min_items'],
    [{ lines: Array.from({ length: 501 }, () => line()) }, 'lines:max_items'],
    [{ lines: [line({ description: '  ' })] }, 'lines[0].description:required'],
    [{ lines: [line({ description: undefined })] }, 'lines[0].description:required'],
    [{ lines: [line({ description: 'd'.repeat(1001) })] }, 'lines[0].description:too_long'],
    [{ issue_date: null }, 'issue_date:invalid_type'],
    [{ issue_date: '2026-5-1' }, 'issue_date:invalid_format'],
    [{ issue_date: '0000-01-01' }, 'issue_date:invalid_date'],
    [{ issue_date: '1899-12-31' }, 'issue_date:out_of_range'],
    [{ issue_date: '2026-05-16', due_date: '2026-05-15' }, 'due_date:due_before_issue'],
    [{ due_date: '2026-05-15' }, 'due_date:due_before_issue'],
    [{ notes: 12 }, 'notes:invalid_type'],
  ])('answers validation_failed for %p', (extra, expected) => {
    expect(failed(body(extra))).toEqual([expected]);
  });

  it('counts notes in characters, not UTF-16 units', () => {
    expect(parseCreateInvoice(body({ notes: '😀'.repeat(2000) }), TODAY).notes).toHaveLength(4000);
    expect(failed(body({ notes: '😀'.repeat(2001) }))).toEqual(['notes:too_long']);
  });

  it('accepts due_date equal to issue_date and null notes', () => {
    expect(parseCreateInvoice(body({ issue_date: '2024-02-29', due_date: '2024-02-29', notes: null }), TODAY)).toMatchObject({
      issueDate: '2024-02-29',
      dueDate: '2024-02-29',
      notes: null,
    });
  });

  it('applies the stages in order: required before line_invalid before validation_failed', () => {
    expect(create({ lines: [-1], colour: 1 }).definition.detailKey).toBe('errors.integrations.invoices.required');
    expect(create(body({ lines: [line({ qty: -1 })], colour: 1 })).definition.detailKey).toBe('errors.integrations.invoices.line_invalid');
  });

  it('refuses a __proto__ member as unknown', () => {
    expect(failed(JSON.parse(`{"__proto__":1,${JSON.stringify(body()).slice(1)}`))).toEqual(['__proto__:unknown_field']);
  });

  it('never reads members from the prototype', () => {
    const value = JSON.parse('{"currency":"EUR","lines":[{"description":"d","qty":1,"unit_price_minor":1,"tax_rate":0}],"constructor":1}');
    expect(create(value).definition.detailKey).toBe('errors.integrations.invoices.required');
  });
});

describe('parseInvoiceChanges', () => {
  const changes = (value: unknown) => problem(() => parseInvoiceChanges(value));

  it('takes only the writable fields; null clears notes', () => {
    expect(parseInvoiceChanges({ notes: null, currency: 'USD', due_date: '2026-06-01' })).toEqual({ notes: null, currency: 'USD', dueDate: '2026-06-01' });
  });

  it('answers no_writable_fields for {}', () => {
    expect(changes({}).definition.detailKey).toBe('errors.integrations.invoices.no_writable_fields');
  });

  it.each([[[]], [null], ['notes']])('answers invalid_body for %p', (value) => {
    expect(changes(value).definition.detailKey).toBe('errors.integrations.invoices.invalid_body');
  });

  it.each([
    [{ lines: [] }, 'lines:unknown_field'],
    [{ status: 'issued' }, 'status:unknown_field'],
    [{ customer_id: null }, 'customer_id:invalid_type'],
    [{ currency: null }, 'currency:invalid_type'],
    [{ currency: 'usd' }, 'currency:invalid_format'],
    [{ issue_date: null }, 'issue_date:invalid_type'],
    [{ due_date: '2026-13-01' }, 'due_date:invalid_date'],
    [{ notes: 'n'.repeat(2001) }, 'notes:too_long'],
  ])('answers validation_failed for %p', (value, expected) => {
    const error = changes(value);
    expect(error.definition.detailKey).toBe('errors.integrations.invoices.validation_failed');
    expect(error.extras.errors!.map((e) => `${e.path}:${e.code}`)).toEqual([expected]);
  });
});

describe('assertDueNotBeforeIssue', () => {
  it('refuses a due_date before the issue_date of the merged invoice', () => {
    expect(() => assertDueNotBeforeIssue('2026-06-01', '2026-06-01')).not.toThrow();
    const error = problem(() => assertDueNotBeforeIssue('2026-06-02', '2026-06-01'));
    expect(error.definition.detailKey).toBe('errors.integrations.invoices.validation_failed');
    expect(error.extras.errors).toEqual([expect.objectContaining({ path: 'due_date', code: 'due_before_issue' })]);
  });
});

describe('parseVoidRequest', () => {
  it('takes an absent body, {} and a reason', () => {
    expect(parseVoidRequest(undefined)).toEqual({ reason: null });
    expect(parseVoidRequest({})).toEqual({ reason: null });
    expect(parseVoidRequest({ reason: 'duplicate' })).toEqual({ reason: 'duplicate' });
  });

  it('refuses a non-object, an unknown member and an over-long or non-string reason', () => {
    expect(problem(() => parseVoidRequest([])).definition.detailKey).toBe('errors.integrations.invoices.invalid_body');
    for (const value of [{ why: 'x' }, { reason: 'r'.repeat(501) }, { reason: 5 }]) {
      expect(problem(() => parseVoidRequest(value)).definition.detailKey).toBe('errors.integrations.invoices.validation_failed');
    }
  });
});
