import { Inject, Injectable } from '@nestjs/common';
import { EventPublisher } from '../platform/events/event-publisher.service.js';
import { type ScopedValues, TenantData, type TenantScope } from '../platform/tenancy/tenant-data.js';
import { isUuid } from '../platform/validation/uuid.pipe.js';
import { yearOf } from './calendar-date.js';
import { nextDocumentNumber } from './document-numbers.js';
import type { InvoiceDto } from './dto/invoice.dto.js';
import type { PaymentDto } from './dto/payment.dto.js';
import { recordAudit } from './finance-audit.js';
import { paymentResource } from './finance.representation.js';
import { OVERDUE_FROM_STATUSES, PAYABLE_STATUSES, settledStatus } from './invoice-status.js';
import { Invoice } from './invoice.entity.js';
import { InvoicesService } from './invoices.service.js';
import { Payment } from './payment.entity.js';

const FINANCE_APPLICATION = { kind: 'finance_application' } as const;

/** A refusal of the Finance application; the CLI prints its message and exits non-zero. */
class FinanceApplicationError extends Error {}

/**
 * What the spec places in "the Finance application": issuing invoices, marking them overdue,
 * recording and refunding payments. Driven by the admin CLI. Every operation locks the invoice
 * row first (refunds too), the same lock the API's void takes, so a payment and a void of one
 * invoice cannot interleave.
 */
@Injectable()
export class FinanceApplicationService {
  constructor(
    @Inject(TenantData) private readonly data: TenantData,
    @Inject(InvoicesService) private readonly invoices: InvoicesService,
    @Inject(EventPublisher) private readonly events: EventPublisher,
  ) {}

  /** draft → issued: number from the company's gap-free sequence for the year of issue_date. */
  async issue(tenantId: string, invoiceId: string): Promise<InvoiceDto> {
    return this.data.transaction(tenantId, async (scope) => {
      const invoice = await this.lockInvoice(scope, invoiceId);
      if (invoice.status !== 'draft') throw new FinanceApplicationError(`Invoice ${invoiceId} is ${invoice.status}; only a draft can be issued`);
      const number = await nextDocumentNumber(scope, 'invoice', yearOf(invoice.issueDate));
      await this.updateInvoice(scope, invoice, { status: 'issued', number, issuedAt: () => 'clock_timestamp()' });
      await recordAudit(scope, { entityType: 'invoice', entityId: invoiceId, action: 'invoice.issued', actor: FINANCE_APPLICATION });
      return this.invoices.current(scope, invoiceId);
    });
  }

  /** issued or partial → overdue. The mark stays, so a later refund returns the invoice to overdue. */
  async markOverdue(tenantId: string, invoiceId: string): Promise<InvoiceDto> {
    return this.data.transaction(tenantId, async (scope) => {
      const invoice = await this.lockInvoice(scope, invoiceId);
      if (!OVERDUE_FROM_STATUSES.includes(invoice.status)) {
        throw new FinanceApplicationError(`Invoice ${invoiceId} is ${invoice.status}; only an issued or partial invoice can become overdue`);
      }
      await this.updateInvoice(scope, invoice, { status: 'overdue', overdueAt: () => 'clock_timestamp()' });
      await recordAudit(scope, { entityType: 'invoice', entityId: invoiceId, action: 'invoice.marked_overdue', actor: FINANCE_APPLICATION });
      return this.invoices.current(scope, invoiceId);
    });
  }

  /**
   * Records money received against an issued, partial or overdue invoice: a Payment `in`,
   * `received`, of 1 up to the balance (no overpayment). The invoice becomes partial, stays
   * overdue, or becomes paid, which fires fin.invoice.paid.
   */
  async recordPayment(tenantId: string, invoiceId: string, amountMinor: number): Promise<PaymentDto> {
    return this.data.transaction(tenantId, async (scope) => {
      const invoice = await this.lockInvoice(scope, invoiceId);
      if (!PAYABLE_STATUSES.includes(invoice.status)) {
        throw new FinanceApplicationError(`Invoice ${invoiceId} is ${invoice.status}; payments are recorded against issued, partial or overdue invoices`);
      }
      if (!Number.isSafeInteger(amountMinor) || amountMinor < 1 || amountMinor > invoice.balanceMinor) {
        throw new FinanceApplicationError(`The amount must be a whole number from 1 to the balance ${invoice.balanceMinor}, not ${amountMinor}`);
      }
      const [paymentId] = await scope.repository(Payment).insert({
        invoiceId,
        billId: null,
        amountMinor,
        currency: invoice.currency,
        direction: 'in',
        status: 'received',
        receivedAt: () => 'clock_timestamp()',
      });
      const paidMinor = invoice.paidMinor + amountMinor;
      const status = settledStatus({ ...invoice, paidMinor });
      await this.updateInvoice(scope, invoice, { status, paidMinor, balanceMinor: invoice.totalMinor - paidMinor });
      await recordAudit(scope, { entityType: 'payment', entityId: paymentId, action: 'payment.recorded', actor: FINANCE_APPLICATION });
      if (status === 'paid') await this.events.publish(scope, 'fin.invoice.paid', await this.invoices.current(scope, invoiceId));
      return paymentResource(await scope.repository(Payment).findOneOrFail({ id: paymentId }));
    });
  }

  /**
   * received → refunded. An invoice's payment no longer counts: the invoice goes back to
   * partial, overdue or issued as its balance and overdue mark say.
   */
  async refundPayment(tenantId: string, paymentId: string): Promise<PaymentDto> {
    return this.data.transaction(tenantId, async (scope) => {
      const found = isUuid(paymentId) ? await scope.repository(Payment).findOne({ id: paymentId }) : null;
      if (!found) throw new FinanceApplicationError(`Payment ${paymentId} not found in tenant ${tenantId}`);
      if (found.direction !== 'in') throw new FinanceApplicationError(`Payment ${paymentId} is a payment to a supplier; only money received can be refunded`);
      const invoice = found.invoiceId === null ? null : await this.lockInvoice(scope, found.invoiceId);
      const payment = await scope.repository(Payment).select('payment').setLock('pessimistic_write').andWhere('payment.id = :paymentId', { paymentId }).getOneOrFail();
      if (payment.status !== 'received') throw new FinanceApplicationError(`Payment ${paymentId} is ${payment.status}; only a received payment can be refunded`);

      await scope
        .repository(Payment)
        .update({ id: paymentId }, { status: 'refunded', refundedAt: () => 'clock_timestamp()', updatedAt: () => 'clock_timestamp()' });
      if (invoice) {
        const paidMinor = invoice.paidMinor - payment.amountMinor;
        await this.updateInvoice(scope, invoice, { status: settledStatus({ ...invoice, paidMinor }), paidMinor, balanceMinor: invoice.totalMinor - paidMinor });
      }
      await recordAudit(scope, { entityType: 'payment', entityId: paymentId, action: 'payment.refunded', actor: FINANCE_APPLICATION });
      return paymentResource(await scope.repository(Payment).findOneOrFail({ id: paymentId }));
    });
  }

  private async lockInvoice(scope: TenantScope, invoiceId: string): Promise<Invoice> {
    const invoice = isUuid(invoiceId)
      ? await scope.repository(Invoice).select('invoice').setLock('pessimistic_write').andWhere('invoice.id = :invoiceId', { invoiceId }).getOne()
      : null;
    if (!invoice) throw new FinanceApplicationError(`Invoice ${invoiceId} not found in tenant ${scope.tenantId}`);
    return invoice;
  }

  private async updateInvoice(scope: TenantScope, invoice: Invoice, values: ScopedValues<Invoice>): Promise<void> {
    await scope.repository(Invoice).update({ id: invoice.id }, { ...values, updatedAt: () => 'clock_timestamp()' });
  }
}
