import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, type QueryDeepPartialEntity } from 'typeorm';
import { EventPublisher } from '../platform/events/event-publisher.service.js';
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
export class FinanceApplicationError extends Error {}

/**
 * What the spec places in "the Finance application": issuing invoices, marking them overdue,
 * recording and refunding payments. Driven by the admin CLI. Every operation locks the invoice
 * row first (refunds too), the same lock the API's void takes, so a payment and a void of one
 * invoice cannot interleave.
 */
@Injectable()
export class FinanceApplicationService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(InvoicesService) private readonly invoices: InvoicesService,
    @Inject(EventPublisher) private readonly events: EventPublisher,
  ) {}

  /** draft → issued: number from the company's gap-free sequence for the year of issue_date. */
  async issue(tenantId: string, invoiceId: string): Promise<InvoiceDto> {
    return this.dataSource.transaction(async (manager) => {
      const invoice = await this.lockInvoice(manager, tenantId, invoiceId);
      if (invoice.status !== 'draft') throw new FinanceApplicationError(`Invoice ${invoiceId} is ${invoice.status}; only a draft can be issued`);
      const number = await nextDocumentNumber(manager, tenantId, 'invoice', yearOf(invoice.issueDate));
      await this.updateInvoice(manager, invoice, { status: 'issued', number, issuedAt: () => 'clock_timestamp()' });
      await recordAudit(manager, { tenantId, entityType: 'invoice', entityId: invoiceId, action: 'invoice.issued', actor: FINANCE_APPLICATION });
      return this.invoiceResource(manager, tenantId, invoiceId);
    });
  }

  /** issued or partial → overdue. The mark stays, so a later refund returns the invoice to overdue. */
  async markOverdue(tenantId: string, invoiceId: string): Promise<InvoiceDto> {
    return this.dataSource.transaction(async (manager) => {
      const invoice = await this.lockInvoice(manager, tenantId, invoiceId);
      if (!OVERDUE_FROM_STATUSES.includes(invoice.status)) {
        throw new FinanceApplicationError(`Invoice ${invoiceId} is ${invoice.status}; only an issued or partial invoice can become overdue`);
      }
      await this.updateInvoice(manager, invoice, { status: 'overdue', overdueAt: () => 'clock_timestamp()' });
      await recordAudit(manager, { tenantId, entityType: 'invoice', entityId: invoiceId, action: 'invoice.marked_overdue', actor: FINANCE_APPLICATION });
      return this.invoiceResource(manager, tenantId, invoiceId);
    });
  }

  /**
   * Records money received against an issued, partial or overdue invoice: a Payment `in`,
   * `received`, of 1 up to the balance (no overpayment). The invoice becomes partial, stays
   * overdue, or becomes paid, which fires fin.invoice.paid.
   */
  async recordPayment(tenantId: string, invoiceId: string, amountMinor: number): Promise<PaymentDto> {
    return this.dataSource.transaction(async (manager) => {
      const invoice = await this.lockInvoice(manager, tenantId, invoiceId);
      if (!PAYABLE_STATUSES.includes(invoice.status)) {
        throw new FinanceApplicationError(`Invoice ${invoiceId} is ${invoice.status}; payments are recorded against issued, partial or overdue invoices`);
      }
      if (!Number.isSafeInteger(amountMinor) || amountMinor < 1 || amountMinor > invoice.balanceMinor) {
        throw new FinanceApplicationError(`The amount must be a whole number from 1 to the balance ${invoice.balanceMinor}, not ${amountMinor}`);
      }
      const { identifiers } = await manager.getRepository(Payment).insert({
        tenantId,
        invoiceId,
        billId: null,
        amountMinor,
        currency: invoice.currency,
        direction: 'in',
        status: 'received',
        receivedAt: () => 'clock_timestamp()',
      });
      const paymentId = identifiers[0].id as string;
      const paidMinor = invoice.paidMinor + amountMinor;
      const status = settledStatus({ ...invoice, paidMinor });
      await this.updateInvoice(manager, invoice, { status, paidMinor, balanceMinor: invoice.totalMinor - paidMinor });
      await recordAudit(manager, { tenantId, entityType: 'payment', entityId: paymentId, action: 'payment.recorded', actor: FINANCE_APPLICATION });
      if (status === 'paid') await this.events.publish(manager, tenantId, 'fin.invoice.paid', await this.invoiceResource(manager, tenantId, invoiceId));
      return paymentResource(await manager.getRepository(Payment).findOneByOrFail({ id: paymentId }));
    });
  }

  /**
   * received → refunded. An invoice's payment no longer counts: the invoice goes back to
   * partial, overdue or issued as its balance and overdue mark say.
   */
  async refundPayment(tenantId: string, paymentId: string): Promise<PaymentDto> {
    return this.dataSource.transaction(async (manager) => {
      const found = isUuid(paymentId) ? await manager.getRepository(Payment).findOneBy({ tenantId, id: paymentId }) : null;
      if (!found) throw new FinanceApplicationError(`Payment ${paymentId} not found in tenant ${tenantId}`);
      if (found.direction !== 'in') throw new FinanceApplicationError(`Payment ${paymentId} is a payment to a supplier; only money received can be refunded`);
      const invoice = found.invoiceId === null ? null : await this.lockInvoice(manager, tenantId, found.invoiceId);
      const payment = await manager
        .getRepository(Payment)
        .createQueryBuilder('payment')
        .setLock('pessimistic_write')
        .where('payment.id = :paymentId', { paymentId })
        .getOneOrFail();
      if (payment.status !== 'received') throw new FinanceApplicationError(`Payment ${paymentId} is ${payment.status}; only a received payment can be refunded`);

      await manager
        .getRepository(Payment)
        .createQueryBuilder()
        .update()
        .set({ status: 'refunded', refundedAt: () => 'clock_timestamp()', updatedAt: () => 'clock_timestamp()' })
        .where('id = :paymentId', { paymentId })
        .execute();
      if (invoice) {
        const paidMinor = invoice.paidMinor - payment.amountMinor;
        await this.updateInvoice(manager, invoice, { status: settledStatus({ ...invoice, paidMinor }), paidMinor, balanceMinor: invoice.totalMinor - paidMinor });
      }
      await recordAudit(manager, { tenantId, entityType: 'payment', entityId: paymentId, action: 'payment.refunded', actor: FINANCE_APPLICATION });
      return paymentResource(await manager.getRepository(Payment).findOneByOrFail({ id: paymentId }));
    });
  }

  private async lockInvoice(manager: EntityManager, tenantId: string, invoiceId: string): Promise<Invoice> {
    const invoice = isUuid(invoiceId)
      ? await manager
          .getRepository(Invoice)
          .createQueryBuilder('invoice')
          .setLock('pessimistic_write')
          .where('invoice.tenant_id = :tenantId AND invoice.id = :invoiceId', { tenantId, invoiceId })
          .getOne()
      : null;
    if (!invoice) throw new FinanceApplicationError(`Invoice ${invoiceId} not found in tenant ${tenantId}`);
    return invoice;
  }

  private async updateInvoice(manager: EntityManager, invoice: Invoice, values: QueryDeepPartialEntity<Invoice>): Promise<void> {
    await manager
      .getRepository(Invoice)
      .createQueryBuilder()
      .update()
      .set({ ...values, updatedAt: () => 'clock_timestamp()' })
      .where('id = :id', { id: invoice.id })
      .execute();
  }

  private async invoiceResource(manager: EntityManager, tenantId: string, invoiceId: string): Promise<InvoiceDto> {
    return this.invoices.representation(manager, await this.invoices.find(manager, tenantId, invoiceId, false));
  }
}
