import type { InvoiceStatus } from './invoice.entity.js';

/**
 * The invoice state machine. The API drives the first and last rows; the Finance application
 * (admin CLI) drives the others.
 *
 *   (none)                   POST /v1/invoices          → draft
 *   draft                    PATCH /v1/invoices/{id}    → draft
 *   draft                    invoice:issue              → issued (number assigned)
 *   issued, partial          invoice:mark-overdue       → overdue
 *   issued, partial, overdue payment:record            → settledStatus (partial, overdue or paid)
 *   partial, overdue, paid   payment:refund             → settledStatus (issued, partial or overdue)
 *   issued, partial, overdue POST /v1/invoices/{id}/void → void, only without a received payment
 *                                                          (so in practice from issued or overdue)
 *
 * draft and void are never re-entered; paid is left only by a refund.
 */
export const VOIDABLE_STATUSES: readonly InvoiceStatus[] = ['issued', 'partial', 'overdue'];
export const PAYABLE_STATUSES: readonly InvoiceStatus[] = ['issued', 'partial', 'overdue'];
export const OVERDUE_FROM_STATUSES: readonly InvoiceStatus[] = ['issued', 'partial'];

export interface SettlementState {
  totalMinor: number;
  paidMinor: number;
  /** Set once the invoice was marked overdue; survives payments and refunds. */
  overdueAt: Date | null;
}

/**
 * What an issued invoice's status is after its payments change: `paid` when nothing is left to
 * pay, otherwise `overdue` once it was marked so, otherwise `partial` with money received and
 * `issued` without.
 */
export function settledStatus(invoice: SettlementState): Extract<InvoiceStatus, 'issued' | 'partial' | 'overdue' | 'paid'> {
  if (invoice.paidMinor > 0 && invoice.paidMinor >= invoice.totalMinor) return 'paid';
  if (invoice.overdueAt !== null) return 'overdue';
  return invoice.paidMinor > 0 ? 'partial' : 'issued';
}
