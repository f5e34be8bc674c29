import { Column, Entity } from 'typeorm';
import { PayableDocumentEntity } from './finance-document.entity.js';

export const INVOICE_STATUSES = ['draft', 'issued', 'partial', 'overdue', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

@Entity('invoices')
export class Invoice extends PayableDocumentEntity {
  @Column({ type: 'text', nullable: true })
  number: string | null;

  @Column({ type: 'uuid' })
  customerId: string;

  @Column({ type: 'text' })
  status: InvoiceStatus;

  @Column({ type: 'date' })
  issueDate: string;

  @Column({ type: 'date' })
  dueDate: string;

  @Column({ type: 'timestamptz', nullable: true })
  issuedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  voidedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  overdueAt: Date | null;

  @Column({ type: 'text' })
  einvoiceStatus: string;

  @Column({ type: 'text', nullable: true })
  notes: string | null;

  @Column({ type: 'uuid', nullable: true })
  salesOrderId: string | null;
}
