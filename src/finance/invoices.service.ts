import { Inject, Injectable } from '@nestjs/common';
import type { AuthContext } from '../platform/auth/auth-context.js';
import { DomainException } from '../platform/errors/domain.exception.js';
import { EventPublisher } from '../platform/events/event-publisher.service.js';
import { TenantData, type TenantScope } from '../platform/tenancy/tenant-data.js';
import { todayUtc, yearOf } from './calendar-date.js';
import { CreditNote } from './credit-note.entity.js';
import { nextDocumentNumber } from './document-numbers.js';
import type { CreateInvoiceDto } from './dto/create-invoice.dto.js';
import type { InvoiceDto } from './dto/invoice.dto.js';
import type { UpdateInvoiceDto } from './dto/update-invoice.dto.js';
import type { VoidInvoiceDto } from './dto/void-invoice.dto.js';
import { recordAudit } from './finance-audit.js';
import { invalidReference, invoiceNotFound } from './finance.errors.js';
import { assertDueNotBeforeIssue, type InvoiceLineInput, toCreateInvoiceInput, toInvoiceChanges, toVoidReason } from './invoice-input.js';
import { VOIDABLE_STATUSES } from './invoice-status.js';
import { decimalEquals, type Decimal, formatDecimal, invoiceTotals, lineAmounts, parseDecimal, withinMaxMinor } from './invoice-totals.js';
import { Invoice } from './invoice.entity.js';
import { Payment } from './payment.entity.js';
import { findReferences, insertDraft, retrieveInvoice } from './invoice-rows.js';

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
      const rates = await this.checkReferences(scope, input);
      const lines = input.lines.map((line, index) => {
        const taxRate = effectiveTaxRate(line, index, rates);
        return { ...line, taxRate, ...lineAmounts(line.qty, line.unitPriceMinor, taxRate) };
      });
      const totals = invoiceTotals(lines);
      if (!withinMaxMinor(totals.totalMinor)) {
        throw new DomainException('InvoiceCreateFailed', `The invoice total would exceed ${Number.MAX_SAFE_INTEGER} minor units.`, {
          code: 'total_out_of_range',
        });
      }
      const invoiceId = await insertDraft(scope, { ...input, totals, lines });
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
      await this.checkReferences(scope, { currency: changes.currency, customerId: changes.customerId, lines: [] });

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
    const invoice = await retrieveInvoice(scope, id);
    if (!invoice) throw invoiceNotFound(id);
    return invoice;
  }

  /**
   * The currency enabled, then the references of the body (customer, products, tax rates), each
   * a 422 naming the first that fails, in one statement; answers the tax rate records' rates.
   */
  private async checkReferences(
    scope: TenantScope,
    asked: { currency?: string; customerId?: string; lines: readonly InvoiceLineInput[] },
  ): Promise<Map<string, Decimal>> {
    if (asked.currency === undefined && asked.customerId === undefined && asked.lines.length === 0) return new Map();
    const named = (pick: (line: InvoiceLineInput) => string | null) => [...new Set(asked.lines.map(pick).filter((id): id is string => id !== null))];
    const found = await findReferences(scope, {
      currency: asked.currency,
      customerId: asked.customerId,
      productIds: named((line) => line.productId),
      taxRateIds: named((line) => line.taxRateId),
    });
    if (asked.currency !== undefined && found.currency_enabled !== true) {
      throw new DomainException('CurrencyNotEnabled', `The currency ${asked.currency} is not enabled in this company's Finance settings.`, {
        currency: asked.currency,
        field: 'currency',
      });
    }
    if (asked.customerId !== undefined && !found.customer_found) throw invalidReference('customer_id', 'customer', asked.customerId);
    const products = new Set(found.product_ids);
    const product = asked.lines.findIndex((line) => line.productId !== null && !products.has(line.productId));
    if (product >= 0) throw invalidReference(`lines[${product}].product_id`, 'product', asked.lines[product].productId!);
    const rates = new Map(Object.entries(found.tax_rates).map(([id, rate]) => [id, parseDecimal(rate)!]));
    const taxRate = asked.lines.findIndex((line) => line.taxRateId !== null && !rates.has(line.taxRateId));
    if (taxRate >= 0) throw invalidReference(`lines[${taxRate}].tax_rate_id`, 'tax rate', asked.lines[taxRate].taxRateId!);
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
