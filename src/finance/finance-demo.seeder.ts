import { Injectable } from '@nestjs/common';
import type { Faker } from '@faker-js/faker';
import { randomUUID } from 'node:crypto';
import type { DemoSeedContext, DemoSeeder } from '../platform/demo/demo-seeder.js';
import { formatMicros } from '../platform/demo/demo-timeline.js';
import { insertRows } from '../platform/demo/insert-rows.js';
import type { TenantScope } from '../platform/tenancy/tenant-data.js';
import { addDays, yearOf } from './calendar-date.js';
import { Bill } from './bill.entity.js';
import { CreditNote } from './credit-note.entity.js';
import { Customer } from './customer.entity.js';
import { reserveDocumentNumbers } from './document-numbers.js';
import { FinanceAuditEntry } from './finance-audit-entry.entity.js';
import { InvoiceLine } from './invoice-line.entity.js';
import { Invoice, type InvoiceStatus } from './invoice.entity.js';
import { decimalOf, formatDecimal, invoiceTotals, lineAmounts, parseDecimal } from './invoice-totals.js';
import { Payment } from './payment.entity.js';
import { Product } from './product.entity.js';
import { PurchaseOrder } from './purchase-order.entity.js';
import { TaxRate } from './tax-rate.entity.js';

const INVOICE_STATES: InvoiceStatus[] = ['draft', 'issued', 'partial', 'overdue', 'paid', 'void'];
const BILL_STATES = ['open', 'partial', 'paid', 'overdue', 'draft', 'void'] as const;
const PURCHASE_ORDER_STATES = ['draft', 'sent', 'partially_received', 'received', 'closed', 'cancelled'] as const;
const TAX_RATES = ['19', '7', '0'];
const FAILURE_REASONS = ['insufficient_funds', 'card_declined', 'account_closed'];
const YEAR_US = 365 * 24 * 3600 * 1_000_000;
const DAY_US = 24 * 3600 * 1_000_000;

/**
 * Timestamps in microseconds since the epoch, oldest first, spread over the year before `end`
 * minus 45 days (room for the later events of a record: issue, payment, overdue, void).
 */
function timeline(faker: Faker, count: number, end: number): number[] {
  return withTies(Array.from({ length: count }, () => end - faker.number.int({ min: 45 * DAY_US, max: YEAR_US })).sort((a, b) => a - b));
}

/**
 * Makes every fourth timestamp of an ascending list equal to the next one, to the microsecond,
 * so lists have ties broken by id. Moving a time later keeps it after whatever it follows.
 */
function withTies(ascending: number[]): number[] {
  for (let i = 1; i < ascending.length; i += 4) ascending[i - 1] = ascending[i];
  return ascending;
}

interface PaymentSeed {
  invoiceId?: string | null;
  billId?: string;
  amountMinor: number;
  status: Payment['status'];
  failureReason?: string | null;
  time: number;
}

const idsOf = (rows: readonly { id: string }[]): string[] => rows.map((row) => row.id);

const dateOf = (micros: number): string => new Date(Math.floor(micros / 1000)).toISOString().slice(0, 10);

interface Ids {
  customers: string[];
  products: string[];
  taxRates: { id: string; rate: string }[];
}

/**
 * Finance demo data for `seed:demo`: customers, products, tax rates, and `records` each of
 * invoices (spread over draft, issued, partial, overdue, paid, void), payments, bills and
 * purchase orders, consistent with each other (paid amounts match payments, voided invoices
 * have credit notes, numbers come from the real sequences).
 */
@Injectable()
export class FinanceDemoSeeder implements DemoSeeder {
  async seed({ data, records, faker }: DemoSeedContext): Promise<{ customer_ids: string[] }> {
    const now = Date.now() * 1000;
    const tenant = await data.tenant();
    const currency = tenant.currencies[0];
    const ids = await this.referenceData(data, faker, records, now);

    const invoices = await this.invoices(data, faker, currency, ids, records, now);
    const orders = await this.purchaseOrders(data, faker, currency, records, now);
    const billPayments = await this.bills(data, faker, currency, orders, records, now, records - invoices.payments.length);
    const payments = [...invoices.payments, ...billPayments];
    payments.push(...this.otherPayments(faker, invoices.unpaid, records - payments.length, now));
    await this.insertPayments(data, currency, payments);
    return { customer_ids: ids.customers };
  }

  private async referenceData(data: TenantScope, faker: Faker, records: number, now: number): Promise<Ids> {
    const customerTimes = timeline(faker, Math.max(3, Math.ceil(records / 2)), now - YEAR_US);
    const customers = customerTimes.map((time) => {
      const name = faker.company.name();
      return { id: randomUUID(), name, email: faker.internet.email({ provider: 'example.com' }).toLowerCase(), createdAt: formatMicros(time), updatedAt: formatMicros(time) };
    });
    const products = Array.from({ length: 6 }, () => ({
      id: randomUUID(),
      name: faker.commerce.productName(),
      createdAt: formatMicros(now - YEAR_US),
      updatedAt: formatMicros(now - YEAR_US),
    }));
    const taxRates = TAX_RATES.map((rate) => ({ id: randomUUID(), rate, name: `VAT ${rate} %` }));
    await insertRows(data, Customer, customers);
    await insertRows(data, Product, products);
    await insertRows(data, TaxRate, taxRates);
    return { customers: idsOf(customers), products: idsOf(products), taxRates: taxRates.map(({ id, rate }) => ({ id, rate })) };
  }

  /**
   * Every invoice is made in memory first (faker called in the same order as one by one), then
   * written in a few statements: numbers reserved per year, invoices, lines, credit notes.
   */
  private async invoices(data: TenantScope, faker: Faker, currency: string, ids: Ids, records: number, now: number) {
    const drafts = timeline(faker, records, now).map((created, index) => {
      const status = INVOICE_STATES[index % INVOICE_STATES.length];
      const lines = Array.from({ length: faker.number.int({ min: 1, max: 4 }) }, () => {
        const rate = faker.helpers.arrayElement(ids.taxRates);
        const qty = faker.helpers.arrayElement([1, 2, 3, 5, 10, 0.5, 1.5, 7.25]);
        const unitPriceMinor = faker.number.int({ min: 500, max: 250_000 });
        return {
          description: faker.commerce.productName(),
          qty,
          unitPriceMinor,
          rate,
          productId: faker.datatype.boolean() ? faker.helpers.arrayElement(ids.products) : null,
          ...lineAmounts(decimalOf(qty), BigInt(unitPriceMinor), parseDecimal(rate.rate)!),
        };
      });
      const totals = invoiceTotals(lines);
      const totalMinor = Number(totals.totalMinor);
      const issueDate = dateOf(created);
      const issued = created + faker.number.int({ min: 3600_000_000, max: DAY_US });
      const paidMinor = status === 'paid' ? totalMinor : status === 'partial' ? Math.floor(totalMinor * faker.number.float({ min: 0.2, max: 0.8 })) : 0;
      const invoice = {
        id: randomUUID(),
        customerId: faker.helpers.arrayElement(ids.customers),
        status,
        currency,
        subtotalMinor: Number(totals.subtotalMinor),
        taxMinor: Number(totals.taxMinor),
        totalMinor,
        paidMinor,
        balanceMinor: status === 'void' ? 0 : totalMinor - paidMinor,
        issueDate,
        dueDate: addDays(issueDate, faker.helpers.arrayElement([14, 30])),
        issuedAt: status === 'draft' ? null : formatMicros(issued),
        voidedAt: status === 'void' ? formatMicros(issued + DAY_US) : null,
        overdueAt: status === 'overdue' ? formatMicros(issued + 31 * DAY_US) : null,
        einvoiceStatus: 'none' as const,
        notes: faker.datatype.boolean() ? faker.lorem.sentence() : null,
        createdAt: formatMicros(created),
        updatedAt: formatMicros(status === 'draft' ? created : issued),
      };
      return { invoice, lines, totals, created, issued, paidMinor };
    });

    const numbers = await reserveDocumentNumbers(data, 'invoice', drafts.map(({ invoice }) => (invoice.status === 'draft' ? null : yearOf(invoice.issueDate))));
    const invoiceIds = drafts.map(({ invoice }) => invoice.id);
    await insertRows(
      data,
      Invoice,
      drafts.map(({ invoice }, index) => ({ ...invoice, number: numbers[index] })),
    );
    await insertRows(
      data,
      InvoiceLine,
      drafts.flatMap(({ lines, created }, index) =>
        lines.map((line, position) => ({
          invoiceId: invoiceIds[index],
          position,
          description: line.description,
          qty: formatDecimal(decimalOf(line.qty)),
          unitPriceMinor: line.unitPriceMinor,
          taxRate: line.rate.rate,
          taxRateId: line.rate.id,
          productId: line.productId,
          netMinor: Number(line.netMinor),
          taxMinor: Number(line.taxMinor),
          createdAt: formatMicros(created),
        })),
      ),
    );

    const payments: PaymentSeed[] = [];
    const unpaid: string[] = [];
    const voided: { invoiceId: string; draft: (typeof drafts)[number] }[] = [];
    for (const [index, draft] of drafts.entries()) {
      const invoiceId = invoiceIds[index];
      const { status } = draft.invoice;
      if (draft.paidMinor > 0) payments.push({ invoiceId, amountMinor: draft.paidMinor, status: 'received', time: draft.issued + 2 * DAY_US });
      if (status === 'issued' || status === 'overdue') unpaid.push(invoiceId);
      if (status === 'void') voided.push({ invoiceId, draft });
    }
    const creditNumbers = await reserveDocumentNumbers(data, 'credit_note', voided.map(({ draft }) => yearOf(dateOf(draft.issued + DAY_US))));
    await insertRows(
      data,
      CreditNote,
      voided.map(({ invoiceId, draft }, index) => ({
        invoiceId,
        number: creditNumbers[index]!,
        currency,
        subtotalMinor: Number(draft.totals.subtotalMinor),
        taxMinor: Number(draft.totals.taxMinor),
        totalMinor: draft.invoice.totalMinor,
        reason: 'Issued to the wrong customer',
        createdAt: formatMicros(draft.issued + DAY_US),
      })),
    );
    await insertRows(
      data,
      FinanceAuditEntry,
      voided.map(({ invoiceId }) => ({
        entityType: 'invoice',
        entityId: invoiceId,
        action: 'invoice.voided',
        reason: 'Issued to the wrong customer',
        actor: 'finance_application',
        apiKeyId: null,
      })),
    );
    return { payments, unpaid };
  }

  private async purchaseOrders(data: TenantScope, faker: Faker, currency: string, records: number, now: number) {
    const suppliers = Array.from({ length: 4 }, () => faker.company.name());
    const rows = timeline(faker, records, now).map((created, index) => {
      const orderDate = dateOf(created);
      const subtotalMinor = faker.number.int({ min: 10_000, max: 5_000_000 });
      const taxMinor = Math.round(subtotalMinor * 0.19);
      const supplierName = faker.helpers.arrayElement(suppliers);
      return {
        id: randomUUID(),
        supplierName,
        status: PURCHASE_ORDER_STATES[index % PURCHASE_ORDER_STATES.length],
        currency,
        subtotalMinor,
        taxMinor,
        totalMinor: subtotalMinor + taxMinor,
        orderDate,
        expectedDate: faker.datatype.boolean() ? addDays(orderDate, faker.number.int({ min: 3, max: 30 })) : null,
        createdAt: formatMicros(created),
        updatedAt: formatMicros(created),
      };
    });
    const numbers = await reserveDocumentNumbers(data, 'purchase_order', rows.map((row) => yearOf(row.orderDate)));
    await insertRows(
      data,
      PurchaseOrder,
      rows.map((row, index) => ({ ...row, number: numbers[index]! })),
    );
    return rows.map(({ id, supplierName }) => ({ id, supplierName }));
  }

  /** Bills, some against the purchase orders; returns their payments, at most `budget`. */
  private async bills(
    data: TenantScope,
    faker: Faker,
    currency: string,
    orders: { id: string; supplierName: string }[],
    records: number,
    now: number,
    budget: number,
  ): Promise<PaymentSeed[]> {
    const payments: { index: number; amountMinor: number; time: number }[] = [];
    const rows = timeline(faker, records, now).map((created, index) => {
      const order = index % 2 === 0 ? orders[index % orders.length] : undefined;
      let status: (typeof BILL_STATES)[number] = BILL_STATES[index % BILL_STATES.length];
      // A bill shown as (partly) paid needs its payment; without room for one it stays open.
      if ((status === 'paid' || status === 'partial') && payments.length >= budget) status = 'open';
      const subtotalMinor = faker.number.int({ min: 5_000, max: 2_000_000 });
      const taxMinor = Math.round(subtotalMinor * 0.19);
      const totalMinor = subtotalMinor + taxMinor;
      const paidMinor = status === 'paid' ? totalMinor : status === 'partial' ? Math.floor(totalMinor / 2) : 0;
      const issueDate = dateOf(created);
      if (paidMinor > 0) payments.push({ index, amountMinor: paidMinor, time: created + 5 * DAY_US });
      return {
        id: randomUUID(),
        number: `${faker.string.alpha({ length: 2, casing: 'upper' })}-${yearOf(issueDate)}-${String(index + 1).padStart(5, '0')}`,
        supplierName: order?.supplierName ?? faker.company.name(),
        purchaseOrderId: order?.id ?? null,
        status,
        currency,
        subtotalMinor,
        taxMinor,
        totalMinor,
        paidMinor,
        balanceMinor: status === 'void' ? 0 : totalMinor - paidMinor,
        issueDate,
        dueDate: addDays(issueDate, 30),
        createdAt: formatMicros(created),
        updatedAt: formatMicros(created),
      };
    });
    await insertRows(data, Bill, rows);
    return payments.map(({ index, amountMinor, time }): PaymentSeed => ({ billId: rows[index].id, amountMinor, status: 'received', time }));
  }

  /** Fills the payments up to `count`: refunded and failed payments against unpaid invoices. */
  private otherPayments(faker: Faker, unpaid: string[], count: number, now: number): PaymentSeed[] {
    return timeline(faker, count, now).map((time, index) => ({
      invoiceId: unpaid.length > 0 ? unpaid[index % unpaid.length] : null,
      amountMinor: faker.number.int({ min: 1_000, max: 100_000 }),
      status: index % 2 === 0 ? 'refunded' : 'failed',
      failureReason: index % 2 === 0 ? null : faker.helpers.arrayElement(FAILURE_REASONS),
      time,
    }));
  }

  private async insertPayments(data: TenantScope, currency: string, payments: PaymentSeed[]): Promise<void> {
    if (payments.length === 0) return;
    const ordered = [...payments].sort((a, b) => a.time - b.time);
    const times = withTies(ordered.map((payment) => payment.time));
    await insertRows(
      data,
      Payment,
      ordered.map((payment, index) => {
        const time = times[index];
        return {
          invoiceId: payment.invoiceId ?? null,
          billId: payment.billId ?? null,
          amountMinor: payment.amountMinor,
          currency,
          direction: payment.billId ? ('out' as const) : ('in' as const),
          status: payment.status,
          receivedAt: formatMicros(time),
          refundedAt: payment.status === 'refunded' ? formatMicros(time + DAY_US) : null,
          failureReason: payment.failureReason ?? null,
          createdAt: formatMicros(time),
          updatedAt: formatMicros(payment.status === 'refunded' ? time + DAY_US : time),
        };
      }),
    );
  }
}
