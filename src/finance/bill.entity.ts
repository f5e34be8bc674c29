import { Column, Entity } from 'typeorm';
import { PayableDocumentEntity } from './finance-document.entity.js';

export const BILL_STATUSES = ['draft', 'open', 'partial', 'overdue', 'paid', 'void'] as const;

/** A supplier's invoice to the company; `number` is the supplier's document number. */
@Entity('bills')
export class Bill extends PayableDocumentEntity {
  @Column({ type: 'text' })
  number: string;

  @Column({ type: 'text' })
  supplierName: string;

  @Column({ type: 'uuid', nullable: true })
  purchaseOrderId: string | null;

  @Column({ type: 'text' })
  status: (typeof BILL_STATUSES)[number];

  @Column({ type: 'date' })
  issueDate: string;

  @Column({ type: 'date' })
  dueDate: string;
}
