import fc from 'fast-check';
import { Scope } from '../../src/platform/catalog/scopes.js';
import type { TestApi } from '../support/api.js';
import { type FinanceFixture, startFinanceApi } from '../support/finance.js';
import type { TenantSession } from '../support/tenant-session.js';

const CREATE_KEYS = [
  'errors.integrations.invoices.invalid_body',
  'errors.integrations.invoices.required',
  'errors.integrations.invoices.line_invalid',
  'errors.integrations.invoices.validation_failed',
  'errors.finance.validation.currency_not_enabled',
  'errors.common.validation.invalid_reference',
  'errors.integrations.invoices.create_failed',
];
const UPDATE_KEYS = [
  'errors.integrations.invoices.invalid_body',
  'errors.integrations.invoices.validation_failed',
  'errors.integrations.invoices.no_writable_fields',
  'errors.finance.validation.currency_not_enabled',
  'errors.common.validation.invalid_reference',
];
const VOID_KEYS = ['errors.integrations.invoices.invalid_body', 'errors.integrations.invoices.validation_failed'];

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** A 422 problem with one of the documented keys and well-formed optional members. */
function expectDocumentedProblem(res: Answer, keys: string[]): void {
  expect(res.status).toBe(422);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(keys).toContain(res.body.detail_key);
  if (res.body.errors !== undefined) {
    for (const error of res.body.errors as Record<string, unknown>[]) {
      expect(Object.keys(error).sort()).toEqual(['code', 'message', 'path']);
    }
  }
  if (res.body.detail_key === 'errors.integrations.invoices.required') expect(typeof res.body.field).toBe('string');
  if (res.body.detail_key === 'errors.finance.validation.currency_not_enabled') expect(res.body.currency).toMatch(/^[A-Z]{3}$/);
}

function expectConsistentInvoice(invoice: Record<string, unknown>): void {
  for (const member of ['subtotal_minor', 'tax_minor', 'total_minor', 'paid_minor', 'balance_minor']) {
    expect(Number.isSafeInteger(invoice[member])).toBe(true);
    expect(invoice[member] as number).toBeGreaterThanOrEqual(0);
  }
  expect(invoice.total_minor).toBe((invoice.subtotal_minor as number) + (invoice.tax_minor as number));
  expect(invoice.due_date as string >= (invoice.issue_date as string)).toBe(true);
}

describe('invoice write fuzzing (e2e): random JSON never gives a 5xx', () => {
  let api: TestApi;
  let session: TenantSession;
  let fin: FinanceFixture;

  beforeAll(async () => {
    // Hundreds of requests on one key: the general rate limit is not what this test is about.
    ({ api, session, fin } = await startFinanceApi({ env: { RATE_LIMIT_PER_SECOND: '100000', TENANT_RATE_LIMIT_PER_SECOND: '100000' }, scopes: [Scope.FinInvoicesWrite], currencies: ['EUR', 'USD'] }));
  });
  afterAll(() => api.close());

  const send = (method: 'post' | 'patch', url: string, value: unknown) =>
    api.http[method](url).set('Authorization', session.auth).set('Content-Type', 'application/json').send(JSON.stringify(value) ?? 'null');

  const json = fc.jsonValue({ maxDepth: 3 });
  const number = fc.oneof(
    fc.integer(),
    fc.double(),
    fc.constantFrom(0, -0, 1, 0.5, 1.005, 2 ** 53 - 1, 2 ** 53, 1e9, 1e9 + 1, 1e21, 100, 100.0001, -1),
    fc.nat({ max: 1_000_000 }),
  );
  const date = fc.oneof(
    fc.date({ min: new Date('1800-01-01'), max: new Date('3100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
    fc.tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 })).map(
      ([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
    ),
    fc.string({ maxLength: 12 }),
    json,
  );
  const uuidOr = (valid: () => string) => fc.oneof(fc.constant(null).map(() => valid()), fc.uuid(), fc.string({ maxLength: 40 }), json);
  const line = fc.oneof(
    { weight: 1, arbitrary: json },
    {
      weight: 4,
      arbitrary: fc
        .record(
          {
            description: fc.oneof(fc.string({ maxLength: 30 }), fc.string({ minLength: 995, maxLength: 1005 }), json),
            qty: fc.oneof(number, json),
            unit_price_minor: fc.oneof(number, json),
            tax_rate: fc.oneof(number, fc.constantFrom(19, 7, 0), json),
            product_id: uuidOr(() => fin.productId),
            tax_rate_id: uuidOr(() => fin.taxRateId),
          },
          { requiredKeys: [] },
        )
        .chain((record) => fc.dictionary(fc.string({ maxLength: 8 }), json, { maxKeys: 1 }).map((extra) => ({ ...extra, ...record }))),
    },
  );
  const header = {
    customer_id: uuidOr(() => fin.customerId),
    currency: fc.oneof(fc.constantFrom('EUR', 'USD', 'GBP', 'eur', 'EURO', ''), json),
    issue_date: date,
    due_date: date,
    notes: fc.oneof(fc.string({ maxLength: 50 }), fc.string({ minLength: 1990, maxLength: 2010 }), fc.constant(null), json),
  };
  const extraMembers = fc.dictionary(fc.string({ maxLength: 10 }), json, { maxKeys: 2 });

  /** Valid bodies, so the fuzzing reaches every stage of the checks and not only the first. */
  const taxRate = fc.oneof(
    { weight: 4, arbitrary: fc.record({ tax_rate: fc.constantFrom(0, 7, 19, 7.5) }) },
    { weight: 2, arbitrary: fc.constant(null).map(() => ({ tax_rate_id: fin.taxRateId })) },
    { weight: 2, arbitrary: fc.constant(null).map(() => ({ tax_rate: 19, tax_rate_id: fin.taxRateId })) },
    { weight: 1, arbitrary: fc.constant(null).map(() => ({ tax_rate: 7, tax_rate_id: fin.taxRateId })) },
  );
  const ordinaryLine = fc
    .record(
      {
        description: fc.string({ minLength: 1, maxLength: 30 }).filter((text) => text.trim() !== ''),
        qty: fc.oneof(fc.nat({ max: 20 }), fc.double({ min: 0, max: 1000, noNaN: true }), fc.constantFrom(0.5, 1.005, 2.675)),
        unit_price_minor: fc.nat({ max: 10_000_000 }),
        product_id: fc.constant(null).map(() => fin.productId),
      },
      { requiredKeys: ['description', 'qty', 'unit_price_minor'] },
    )
    .chain((line) => taxRate.map((tax) => ({ ...line, ...tax })));
  /** Near the amount limit: two of these exceed the invoice total limit. */
  const hugeLine = fc.record({
    description: fc.constant('Huge'),
    qty: fc.constantFrom(1, 0.5, 2),
    unit_price_minor: fc.integer({ min: 2 ** 52, max: 2 ** 53 - 1 }),
    tax_rate: fc.constantFrom(0, 19),
  });
  const validLine = fc.oneof({ weight: 8, arbitrary: ordinaryLine }, { weight: 1, arbitrary: hugeLine });
  const validBody = fc.record(
    {
      customer_id: fc.constant(null).map(() => fin.customerId),
      currency: fc.constantFrom('EUR', 'USD'),
      lines: fc.array(validLine, { minLength: 1, maxLength: 3 }),
      issue_date: fc.constantFrom('2026-01-31', '2024-02-29'),
      due_date: fc.constantFrom('2999-01-31', '2999-12-31'),
      notes: fc.oneof(fc.string({ maxLength: 50 }), fc.constant(null)),
    },
    { requiredKeys: ['customer_id', 'currency', 'lines'] },
  );
  /** Sets (or, for undefined, deletes) one member of the body or of one of its lines. */
  const mutation = fc.record({
    line: fc.option(fc.nat({ max: 3 }), { nil: undefined }),
    member: fc.oneof(fc.constantFrom('customer_id', 'currency', 'lines', 'issue_date', 'due_date', 'notes', 'description', 'qty', 'unit_price_minor', 'tax_rate', 'product_id', 'tax_rate_id'), fc.string({ maxLength: 8 })),
    value: fc.oneof(json, number, date, fc.constantFrom('EUR', 'USD', 'GBP', undefined), fc.uuid()),
  });
  const mutated = fc.tuple(validBody, fc.array(mutation, { maxLength: 2 })).map(([body, mutations]) => {
    const copy = structuredClone(body) as Record<string, unknown> & { lines: Record<string, unknown>[] };
    for (const { line, member, value } of mutations) {
      const target = line === undefined || !Array.isArray(copy.lines) ? copy : copy.lines[line % copy.lines.length];
      if (typeof target !== 'object' || target === null) continue;
      if (value === undefined) delete target[member];
      else target[member] = value;
    }
    return copy;
  });
  const randomBody = fc
    .record({ ...header, lines: fc.oneof({ weight: 4, arbitrary: fc.array(line, { maxLength: 4 }) }, { weight: 1, arbitrary: json }) }, { requiredKeys: [] })
    .chain((record) => fc.oneof(fc.constant(record), extraMembers.map((extra) => ({ ...extra, ...record }))));
  const createBody = fc.oneof({ weight: 1, arbitrary: json }, { weight: 2, arbitrary: randomBody }, { weight: 6, arbitrary: mutated });

  it('POST /v1/invoices answers 201 or a documented 422 for any JSON body', async () => {
    await fc.assert(
      fc.asyncProperty(createBody, async (body) => {
        const res = await send('post', '/v1/invoices', body);
        if (res.status === 201) {
          expectConsistentInvoice(res.body);
          expect(res.headers.location).toBe(`https://api.test.local/v1/invoices/${res.body.id}`);
        } else {
          expectDocumentedProblem(res, CREATE_KEYS);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('PATCH /v1/invoices/{id} answers 200 or a documented 422 for any JSON body', async () => {
    const draft = await send('post', '/v1/invoices', fin.invoiceBody({ issue_date: '2026-01-01', due_date: '2026-12-31' }));
    const patchBody = fc.oneof(
      { weight: 1, arbitrary: json },
      { weight: 4, arbitrary: fc.record(header, { requiredKeys: [] }).chain((record) => fc.oneof(fc.constant(record), extraMembers.map((extra) => ({ ...extra, ...record })))) },
    );
    await fc.assert(
      fc.asyncProperty(patchBody, async (body) => {
        const res = await send('patch', `/v1/invoices/${draft.body.id}`, body);
        if (res.status === 200) expectConsistentInvoice(res.body);
        else expectDocumentedProblem(res, UPDATE_KEYS);
      }),
      { numRuns: 200 },
    );
  });

  it('POST /v1/invoices/{id}/void answers 200 or a documented 422 for any JSON body', async () => {
    const issue = async () => {
      const draft = await send('post', '/v1/invoices', fin.invoiceBody());
      await fin.issue(draft.body.id);
      return draft.body.id as string;
    };
    let id = await issue();
    const voidBody = fc.oneof(json, fc.record({ reason: fc.oneof(fc.string({ maxLength: 600 }), json) }, { requiredKeys: [] }), extraMembers);
    await fc.assert(
      fc.asyncProperty(voidBody, async (body) => {
        const res = await send('post', `/v1/invoices/${id}/void`, body);
        if (res.status === 200) {
          expect(res.body).toMatchObject({ status: 'void', balance_minor: 0 });
          id = await issue();
        } else {
          expectDocumentedProblem(res, VOID_KEYS);
        }
      }),
      { numRuns: 150 },
    );
  });
});
