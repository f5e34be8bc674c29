import type { DataSource } from 'typeorm';
import { runCommand } from '../../src/cli/cli-program.js';
import { COMMAND_GROUPS } from '../../src/cli/commands.js';
import { Scope } from '../../src/platform/catalog/scopes.js';
import type { TestApi } from '../support/api.js';
import { countRows, createFinanceFixture, type FinanceFixture, outboxEvents, startFinanceApi } from '../support/finance.js';
import { runCli } from '../support/cli.js';
import { createTenantSession, type TenantSession } from '../support/tenant-session.js';

type Json = Record<string, unknown>;

/** The Finance application's admin CLI (operations.md), run in-process against the test database. */
describe('Finance-application CLI commands (e2e)', () => {
  let api: TestApi;
  let session: TenantSession;
  let fin: FinanceFixture;
  let db: DataSource;

  beforeAll(async () => {
    ({ api, session, fin, db } = await startFinanceApi({ scopes: [Scope.FinInvoicesWrite] }));
  });
  afterAll(() => api.close());

  const cli = async (...argv: string[]) => ((await runCommand(argv, async () => api.app, COMMAND_GROUPS)) as { json: Json }).json;
  const tenant = () => session.tenant.id;
  const draft = async (body: Json = {}) => {
    const res = await api.http.post('/v1/invoices').set('Authorization', session.auth).send(fin.invoiceBody(body));
    expect(res.status).toBe(201);
    return res.body as Json & { id: string; total_minor: number };
  };
  const invoiceRow = async (id: string) =>
    (await db.query(`SELECT status, paid_minor::int, balance_minor::int, number FROM invoices WHERE id = $1`, [id]))[0] as Json;
  const paidEvents = async (id: string) =>
    (await outboxEvents(api.app, tenant())).filter((e) => e.type === 'fin.invoice.paid' && (e.envelope.data as Json).id === id);

  it('keeps the CLI contract for each command: one JSON object on stdout and exit 0, or a message on stderr, nothing on stdout and exit 1', async () => {
    const invoice = await draft();
    const runs = [
      ['customer:create', '--tenant', tenant()],
      ['product:create', '--tenant', tenant()],
      ['tax-rate:create', '--tenant', tenant(), '--rate', '19'],
      ['invoice:issue', '--tenant', tenant(), '--invoice', invoice.id],
      ['invoice:mark-overdue', '--tenant', tenant(), '--invoice', invoice.id],
      ['payment:record', '--tenant', tenant(), '--invoice', invoice.id, '--amount-minor', '1'],
    ];
    for (const argv of runs) {
      const run = await runCli(...argv);
      expect({ argv, code: run.code, stderr: run.stderr, lines: run.stdout.split('\n').length }).toEqual({ argv, code: 0, stderr: '', lines: 2 });
      expect(run.json).toEqual(expect.objectContaining({ id: expect.any(String) }));
    }
    const payment = (await runCli('payment:record', '--tenant', tenant(), '--invoice', invoice.id, '--amount-minor', '1')).json;
    expect((await runCli('payment:refund', '--tenant', tenant(), '--payment', String(payment.id))).json).toMatchObject({ id: payment.id, status: 'refunded' });

    const missing = '00000000-0000-4000-8000-000000000000';
    for (const argv of [
      ['customer:create', '--tenant', missing],
      ['product:create', '--tenant', missing],
      ['tax-rate:create', '--tenant', tenant(), '--rate', '101'],
      ['invoice:issue', '--tenant', tenant(), '--invoice', missing],
      ['invoice:mark-overdue', '--tenant', tenant(), '--invoice', missing],
      ['payment:record', '--tenant', tenant(), '--invoice', missing, '--amount-minor', '1'],
      ['payment:refund', '--tenant', tenant(), '--payment', missing],
    ]) {
      const run = await runCli(...argv);
      expect({ argv, code: run.code, stdout: run.stdout }).toEqual({ argv, code: 1, stdout: '' });
      expect(run.stderr).toMatch(/\S/);
    }
  });

  describe('reference data', () => {
    it('customer:create, product:create and tax-rate:create print {id} and store the record in the company', async () => {
      const customer = await cli('customer:create', '--tenant', tenant(), '--name', 'Initech');
      const product = await cli('product:create', '--tenant', tenant());
      // Spaces around it, as around any other flag's value (an amount's or an id's), do not count.
      const rate = await cli('tax-rate:create', '--tenant', tenant(), '--rate', ' 7.70 ');
      for (const printed of [customer, product, rate]) expect(Object.keys(printed)).toEqual(['id']);
      expect(await db.query(`SELECT name, tenant_id FROM customers WHERE id = $1`, [customer.id])).toEqual([{ name: 'Initech', tenant_id: tenant() }]);
      expect(await db.query(`SELECT tenant_id FROM products WHERE id = $1`, [product.id])).toEqual([{ tenant_id: tenant() }]);
      expect(await db.query(`SELECT rate::text, tenant_id FROM tax_rates WHERE id = $1`, [rate.id])).toEqual([{ rate: '7.7', tenant_id: tenant() }]);
    });

    it.each([['-1'], ['100.5'], ['abc'], ['19%'], ['19.1234567']])('refuses tax rate %s', async (rate) => {
      await expect(cli('tax-rate:create', '--tenant', tenant(), '--rate', rate)).rejects.toThrow(/percentage from 0 to 100 with at most 6 decimals/);
    });

    it.each([['customer:create'], ['product:create']])('%s refuses a blank or overlong name with a message, not the table\'s constraint', async (command) => {
      await expect(cli(command, '--tenant', tenant(), '--name', '  ')).rejects.toThrow('name must be 1-200 characters, not blank');
      await expect(cli(command, '--tenant', tenant(), '--name', 'x'.repeat(201))).rejects.toThrow('name must be 1-200 characters, not blank');
      expect(await cli(command, '--tenant', tenant(), '--name', '😀'.repeat(200))).toEqual({ id: expect.any(String) });
    });

    it('refuses an unknown tenant', async () => {
      await expect(cli('customer:create', '--tenant', '00000000-0000-4000-8000-000000000000')).rejects.toThrow(/not found/);
      await expect(cli('product:create', '--tenant', 'nope')).rejects.toThrow(/not an id: nope/);
    });
  });

  describe('invoice:issue', () => {
    it('issues a draft with the next gap-free number of the issue year and prints the Invoice', async () => {
      const other = await createTenantSession(api.app);
      const otherFin = await createFinanceFixture(api.app, other.tenant.id);
      const a = await draft({ issue_date: '2031-01-10' });
      const b = await draft({ issue_date: '2031-06-10' });
      const c = await draft({ issue_date: '2032-02-01' });
      const issuedA = await cli('invoice:issue', '--tenant', tenant(), '--invoice', a.id);
      expect(issuedA).toMatchObject({ id: a.id, status: 'issued', number: 'INV-2031-000001', issued_at: expect.any(String), total_minor: a.total_minor });
      expect(issuedA.lines).toEqual(a.lines);
      await expect(cli('invoice:issue', '--tenant', tenant(), '--invoice', a.id)).rejects.toThrow(/only a draft/);
      expect((await cli('invoice:issue', '--tenant', tenant(), '--invoice', b.id)).number).toBe('INV-2031-000002');
      expect((await cli('invoice:issue', '--tenant', tenant(), '--invoice', c.id)).number).toBe('INV-2032-000001');

      const foreign = await api.http.post('/v1/invoices').set('Authorization', other.auth).send(otherFin.invoiceBody({ issue_date: '2031-03-03' }));
      expect((await otherFin.issue(foreign.body.id)).number).toBe('INV-2031-000001');
    });

    it('numbers concurrent issues without gaps or duplicates', async () => {
      const drafts = await Promise.all(Array.from({ length: 8 }, () => draft({ issue_date: '2033-05-05' })));
      const issued = await Promise.all(drafts.map((d) => fin.issue(d.id)));
      expect(issued.map((i) => i.number).sort()).toEqual(Array.from({ length: 8 }, (_, i) => `INV-2033-${String(i + 1).padStart(6, '0')}`));
    });

    it("refuses another company's invoice and an unknown one", async () => {
      const other = await createTenantSession(api.app);
      const a = await draft();
      await expect(cli('invoice:issue', '--tenant', other.tenant.id, '--invoice', a.id)).rejects.toThrow(/not found/);
      await expect(cli('invoice:issue', '--tenant', tenant(), '--invoice', '00000000-0000-4000-8000-000000000000')).rejects.toThrow(/not found/);
      await expect(cli('invoice:issue', '--tenant', tenant(), '--invoice', 'x')).rejects.toThrow(/not an id: x/);
      expect((await invoiceRow(a.id)).status).toBe('draft');
    });
  });

  describe('invoice:mark-overdue', () => {
    it('moves an issued or partial invoice to overdue and refuses the others', async () => {
      const a = await draft();
      await expect(cli('invoice:mark-overdue', '--tenant', tenant(), '--invoice', a.id)).rejects.toThrow(/only an issued or partial/);
      await fin.issue(a.id);
      expect(await cli('invoice:mark-overdue', '--tenant', tenant(), '--invoice', a.id)).toMatchObject({ id: a.id, status: 'overdue' });
      await expect(cli('invoice:mark-overdue', '--tenant', tenant(), '--invoice', a.id)).rejects.toThrow(/overdue/);

      const b = await draft();
      await fin.issue(b.id);
      await fin.pay(b.id, 1);
      expect(await cli('invoice:mark-overdue', '--tenant', tenant(), '--invoice', b.id)).toMatchObject({ status: 'overdue', paid_minor: 1 });
    });
  });

  describe('payment:record and payment:refund', () => {
    it('records partial then full payment: partial, then paid with exactly one fin.invoice.paid', async () => {
      const invoice = await draft();
      await fin.issue(invoice.id);
      const first = await cli('payment:record', '--tenant', tenant(), '--invoice', invoice.id, '--amount-minor', '1000');
      expect(first).toEqual({
        id: expect.any(String),
        tenant_id: tenant(),
        invoice_id: invoice.id,
        bill_id: null,
        amount_minor: 1000,
        currency: 'EUR',
        direction: 'in',
        status: 'received',
        received_at: expect.any(String),
        failure_reason: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      expect(await invoiceRow(invoice.id)).toMatchObject({ status: 'partial', paid_minor: 1000, balance_minor: invoice.total_minor - 1000 });
      expect(await paidEvents(invoice.id)).toHaveLength(0);

      await cli('payment:record', '--tenant', tenant(), '--invoice', invoice.id, '--amount-minor', String(invoice.total_minor - 1000));
      expect(await invoiceRow(invoice.id)).toMatchObject({ status: 'paid', paid_minor: invoice.total_minor, balance_minor: 0 });
      const events = await paidEvents(invoice.id);
      expect(events).toHaveLength(1);
      expect(events[0].envelope.data).toMatchObject({ id: invoice.id, status: 'paid', balance_minor: 0, paid_minor: invoice.total_minor });

      const read = await api.http.get(`/v1/payments/${first.id}`).set('Authorization', (await session.newKey([Scope.FinPaymentsRead])).auth);
      expect(read.body).toEqual(first);
    });

    it('refuses overpayment, a zero or fractional amount, and payments on drafts, paid and void invoices', async () => {
      const invoice = await draft();
      await expect(cli('payment:record', '--tenant', tenant(), '--invoice', invoice.id, '--amount-minor', '1')).rejects.toThrow(/draft/);
      await fin.issue(invoice.id);
      await expect(cli('payment:record', '--tenant', tenant(), '--invoice', invoice.id, '--amount-minor', String(invoice.total_minor + 1))).rejects.toThrow(/balance/);
      await expect(cli('payment:record', '--tenant', tenant(), '--invoice', invoice.id, '--amount-minor', '0')).rejects.toThrow(/balance/);
      await expect(cli('payment:record', '--tenant', tenant(), '--invoice', invoice.id, '--amount-minor', '1.5')).rejects.toThrow(/not an integer: 1\.5/);
      // Beyond 2^53 a number would be rounded: refused, not paid as a different amount.
      await expect(cli('payment:record', '--tenant', tenant(), '--invoice', invoice.id, '--amount-minor', '9007199254740992')).rejects.toThrow(/not a whole number between -2\^53 and 2\^53: 9007199254740992/);
      await expect(cli('payment:record', '--tenant', tenant(), '--invoice', 'INV-1', '--amount-minor', '1')).rejects.toThrow(/not an id: INV-1/);
      await fin.pay(invoice.id, invoice.total_minor);
      await expect(cli('payment:record', '--tenant', tenant(), '--invoice', invoice.id, '--amount-minor', '1')).rejects.toThrow(/paid/);
      expect(await countRows(api.app, 'payments', tenant())).toBeGreaterThan(0);
      expect(await db.query(`SELECT count(*)::int AS n FROM payments WHERE invoice_id = $1`, [invoice.id])).toEqual([{ n: 1 }]);
    });

    it('refunds: the payment is refunded and the invoice goes back as its balance says', async () => {
      const invoice = await draft();
      await fin.issue(invoice.id);
      const part = await fin.pay(invoice.id, 100);
      const rest = await fin.pay(invoice.id, invoice.total_minor - 100);
      expect((await invoiceRow(invoice.id)).status).toBe('paid');

      const refunded = await cli('payment:refund', '--tenant', tenant(), '--payment', rest.id as string);
      expect(refunded).toMatchObject({ id: rest.id, status: 'refunded', amount_minor: invoice.total_minor - 100 });
      expect(await invoiceRow(invoice.id)).toMatchObject({ status: 'partial', paid_minor: 100, balance_minor: invoice.total_minor - 100 });
      await expect(cli('payment:refund', '--tenant', tenant(), '--payment', rest.id as string)).rejects.toThrow(/refunded/);

      await fin.refund(part.id as string);
      expect(await invoiceRow(invoice.id)).toMatchObject({ status: 'issued', paid_minor: 0, balance_minor: invoice.total_minor });
    });

    it('returns a refunded overdue invoice to overdue', async () => {
      const invoice = await draft();
      await fin.issue(invoice.id);
      await fin.markOverdue(invoice.id);
      const payment = await fin.pay(invoice.id, invoice.total_minor);
      expect((await invoiceRow(invoice.id)).status).toBe('paid');
      await fin.refund(payment.id as string);
      expect((await invoiceRow(invoice.id)).status).toBe('overdue');
    });

    it("refuses another company's payment and an unknown one", async () => {
      const invoice = await draft();
      await fin.issue(invoice.id);
      const payment = await fin.pay(invoice.id, 5);
      const other = await createTenantSession(api.app);
      await expect(cli('payment:refund', '--tenant', other.tenant.id, '--payment', payment.id as string)).rejects.toThrow(/not found/);
      await expect(cli('payment:refund', '--tenant', tenant(), '--payment', '00000000-0000-4000-8000-000000000000')).rejects.toThrow(/not found/);
      expect((await invoiceRow(invoice.id)).status).toBe('partial');
    });

    it('keeps the invoice consistent under concurrent payments: never over the total', async () => {
      const invoice = await draft();
      await fin.issue(invoice.id);
      const half = Math.ceil(invoice.total_minor / 2);
      const results = await Promise.allSettled(Array.from({ length: 4 }, () => fin.pay(invoice.id, half)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(invoice.total_minor % 2 === 0 ? 2 : 1);
      const row = await invoiceRow(invoice.id);
      const [{ sum }] = await db.query(`SELECT coalesce(sum(amount_minor), 0)::int AS sum FROM payments WHERE invoice_id = $1 AND status = 'received'`, [invoice.id]);
      expect(row.paid_minor).toBe(sum);
      expect(row.balance_minor).toBe(invoice.total_minor - sum);
    });
  });
});
