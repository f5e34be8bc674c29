import { Inject, Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import type { AuthContext } from '../platform/auth/auth-context.js';
import { DomainException } from '../platform/errors/domain.exception.js';
import { EventPublisher } from '../platform/events/event-publisher.service.js';
import { TenantData, type TenantScope } from '../platform/tenancy/tenant-data.js';
import { todayUtc, yearOf } from './calendar-date.js';
import { CreditNote } from './credit-note.entity.js';
import { Customer } from './customer.entity.js';
import { nextDocumentNumber } from './document-numbers.js';
import type { CreateInvoiceDto } from './dto/create-invoice.dto.js';
import type { InvoiceDto } from './dto/invoice.dto.js';
import type { UpdateInvoiceDto } from './dto/update-invoice.dto.js';
import type { VoidInvoiceDto } from './dto/void-invoice.dto.js';
import { recordAudit } from './finance-audit.js';
import { invalidReference, invoiceNotFound } from './finance.errors.js';
import { assertDueNotBeforeIssue, type InvoiceLineInput, toCreateInvoiceInput, toInvoiceChanges, toVoidReason } from './invoice-input.js';
import { InvoiceLine } from './invoice-line.entity.js';
import { VOIDABLE_STATUSES } from './invoice-status.js';
import { decimalEquals, type Decimal, formatDecimal, invoiceTotals, lineAmounts, parseDecimal, withinMaxMinor } from './invoice-totals.js';
import { Invoice } from './invoice.entity.js';
import { Payment } from './payment.entity.js';
import { Product } from './product.entity.js';
import { TaxRate } from './tax-rate.entity.js';
import { readInvoice } from './invoice-rows.js';

/**
 * The invoice API's writes the spec allows (create a draft, change a
 * draft's header, void an issued invoice). Each write is one transaction that also writes its
 * outbox event; state-changing writes lock the invoice row first, so concurrent requests on one
 * invoice are serialised and the loser sees the winner's result.
 */
@Injectable()
export class InvoicesService {
  constructor(
    @Inject(TenantData) private readonly data: TenantData,
    @Inject(EventPublisher) private readonly events: EventPublisher,
  ) {}

  async create(tenantId: string, body: CreateInvoiceDto): Promise<InvoiceDto> {
    const input = toCreateInvoiceInput(body, todayUtc());
    return this.data.transaction(tenantId, async (scope) => {
      await this.assertCurrencyEnabled(scope, input.currency);
      await this.assertCustomer(scope, input.customerId);
      await this.assertProducts(scope, input.lines);
      const rates = await this.taxRates(scope, input.lines);

      const priced = input.lines.map((line, index) => {
        const taxRate = effectiveTaxRate(line, index, rates);
        return { line, taxRate, ...lineAmounts(line.qty, line.unitPriceMinor, taxRate) };
      });
      const totals = invoiceTotals(priced);
      if (!withinMaxMinor(totals.totalMinor)) {
        throw new DomainException('InvoiceCreateFailed', `The invoice total would exceed ${Number.MAX_SAFE_INTEGER} minor units.`, {
          code: 'total_out_of_range',
        });
      }

      const [invoiceId] = await scope.repository(Invoice).insert({
        customerId: input.customerId,
        status: 'draft',
        currency: input.currency,
        subtotalMinor: Number(totals.subtotalMinor),
        taxMinor: Number(totals.taxMinor),
        totalMinor: Number(totals.totalMinor),
        paidMinor: 0,
        balanceMinor: Number(totals.totalMinor),
        issueDate: input.issueDate,
        dueDate: input.dueDate,
        notes: input.notes,
        einvoiceStatus: 'none',
      });
      await scope.repository(InvoiceLine).insert(
        priced.map(({ line, taxRate, netMinor, taxMinor }, position) => ({
          invoiceId,
          position,
          description: line.description,
          qty: formatDecimal(line.qty),
          unitPriceMinor: Number(line.unitPriceMinor),
          taxRate: formatDecimal(taxRate),
          productId: line.productId,
          taxRateId: line.taxRateId,
          netMinor: Number(netMinor),
          taxMinor: Number(taxMinor),
        })),
      );
      const invoice = await this.current(scope, invoiceId);
      await this.events.publish(scope, 'fin.invoice.created', invoice);
      return invoice;
    });
  }

  /**
   * Changes a draft's header. Checks after the body: 404, not a draft (update_failed), the
   * merged dates, the currency, the customer. Every valid PATCH is a change, whether or not its
   * values differ from the stored ones: spec 3 fires fin.invoice.updated for each.
   */
  async update(tenantId: string, id: string, body: UpdateInvoiceDto): Promise<InvoiceDto> {
    const changes = toInvoiceChanges(body);
    return this.data.transaction(tenantId, async (scope) => {
      const invoice = await this.find(scope, id, true);
      if (invoice.status !== 'draft') {
        throw new DomainException('InvoiceUpdateFailed', `The invoice is ${invoice.status}; only a draft can be changed.`, { code: 'not_draft' });
      }
      assertDueNotBeforeIssue(changes.issueDate ?? invoice.issueDate, changes.dueDate ?? invoice.dueDate);
      if (changes.currency !== undefined) await this.assertCurrencyEnabled(scope, changes.currency);
      if (changes.customerId !== undefined) await this.assertCustomer(scope, changes.customerId);

      await scope.repository(Invoice).update({ id }, { ...changes, updatedAt: () => 'clock_timestamp()' });
      const updated = await this.current(scope, id);
      await this.events.publish(scope, 'fin.invoice.updated', updated);
      return updated;
    });
  }

  /**
   * Voids an issued invoice: status void, voided_at, balance 0, a reversing credit note, an
   * audit entry with the reason and the API key, and the event, in one transaction. The row lock
   * makes a concurrent second void wait and then find the invoice already void.
   */
  async void(auth: AuthContext, id: string, body: VoidInvoiceDto): Promise<InvoiceDto> {
    const reason = toVoidReason(body);
    return this.data.transaction(auth.tenantId, async (scope) => {
      const invoice = await this.find(scope, id, true);
      if (!VOIDABLE_STATUSES.includes(invoice.status)) {
        throw new DomainException('InvalidInvoiceStatusForVoid', `The invoice is ${invoice.status}; only an issued, partial or overdue invoice can be voided.`, {
          code: 'invalid_status',
        });
      }
      const received = await scope.repository(Payment).count({ invoiceId: id, status: 'received' });
      if (received > 0) {
        throw new DomainException('InvoiceVoidFailed', 'The invoice has a recorded payment; refund it before voiding the invoice.', {
          code: 'payment_recorded',
        });
      }

      await scope
        .repository(Invoice)
        .update({ id }, { status: 'void', balanceMinor: 0, voidedAt: () => 'clock_timestamp()', updatedAt: () => 'clock_timestamp()' });
      await scope.repository(CreditNote).insert({
        invoiceId: id,
        number: await nextDocumentNumber(scope, 'credit_note', yearOf(todayUtc())),
        currency: invoice.currency,
        subtotalMinor: invoice.subtotalMinor,
        taxMinor: invoice.taxMinor,
        totalMinor: invoice.totalMinor,
        reason,
      });
      await recordAudit(scope, {
        entityType: 'invoice',
        entityId: id,
        action: 'invoice.voided',
        reason,
        actor: { kind: 'api_key', apiKeyId: auth.apiKeyId },
      });
      const voided = await this.current(scope, id);
      await this.events.publish(scope, 'fin.invoice.voided', voided);
      return voided;
    });
  }

  /** The invoice of this company, optionally locked for the rest of the transaction; else 404. */
  async find(scope: TenantScope, id: string, lock: boolean): Promise<Invoice> {
    const query = scope.repository(Invoice).select('invoice').andWhere('invoice.id = :id', { id });
    if (lock) query.setLock('pessimistic_write');
    const invoice = await query.getOne();
    if (!invoice) throw invoiceNotFound(id);
    return invoice;
  }

  /** The invoice as the API shows it now, read in the transaction that changed it: one statement with its lines; else 404. */
  async current(scope: TenantScope, id: string): Promise<InvoiceDto> {
    const invoice = await readInvoice(scope, id);
    if (!invoice) throw invoiceNotFound(id);
    return invoice;
  }

  private async assertCurrencyEnabled(scope: TenantScope, currency: string): Promise<void> {
    const tenant = await scope.tenant();
    if (!tenant.currencies.includes(currency)) throw new DomainException('CurrencyNotEnabled', `The currency ${currency} is not enabled in this company's Finance settings.`, { currency, field: 'currency' });
  }

  private async assertCustomer(scope: TenantScope, customerId: string): Promise<void> {
    if (!(await scope.repository(Customer).exists({ id: customerId }))) {
      throw invalidReference('customer_id', 'customer', customerId);
    }
  }

  private async assertProducts(scope: TenantScope, lines: InvoiceLineInput[]): Promise<void> {
    const wanted = [...new Set(lines.map((line) => line.productId).filter((id): id is string => id !== null))];
    if (wanted.length === 0) return;
    const found = new Set((await scope.repository(Product).find({ select: { id: true }, where: { id: In(wanted) } })).map((p) => p.id));
    const index = lines.findIndex((line) => line.productId !== null && !found.has(line.productId));
    if (index >= 0) throw invalidReference(`lines[${index}].product_id`, 'product', lines[index].productId!);
  }

  /** The rates of the tax rate records the lines name; invalid_reference for one not in this company. */
  private async taxRates(scope: TenantScope, lines: InvoiceLineInput[]): Promise<Map<string, Decimal>> {
    const wanted = [...new Set(lines.map((line) => line.taxRateId).filter((id): id is string => id !== null))];
    const rates = new Map<string, Decimal>();
    if (wanted.length === 0) return rates;
    for (const record of await scope.repository(TaxRate).find({ where: { id: In(wanted) } })) {
      rates.set(record.id, parseDecimal(record.rate)!);
    }
    const index = lines.findIndex((line) => line.taxRateId !== null && !rates.has(line.taxRateId));
    if (index >= 0) throw invalidReference(`lines[${index}].tax_rate_id`, 'tax rate', lines[index].taxRateId!);
    return rates;
  }
}

/**
 * A line's rate: its own `tax_rate`, or its tax rate record's when it sent none. Sending both
 * with different values is a line_invalid (`tax_rate_conflict`).
 */
function effectiveTaxRate(line: InvoiceLineInput, index: number, rates: Map<string, Decimal>): Decimal {
  const recorded = line.taxRateId === null ? undefined : rates.get(line.taxRateId);
  if (line.taxRate === null) return recorded!;
  if (recorded !== undefined && !decimalEquals(line.taxRate, recorded)) {
    const error = {
      path: `lines[${index}].tax_rate`,
      code: 'tax_rate_conflict',
      message: `lines[${index}].tax_rate ${formatDecimal(line.taxRate)} differs from the rate ${formatDecimal(recorded)} of tax_rate_id ${line.taxRateId}`,
    };
    throw new DomainException('InvoiceLineInvalid', error.message, { field: error.path, code: error.code, errors: [error] });
  }
  return line.taxRate;
}
