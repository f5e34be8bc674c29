import { Column, Entity } from 'typeorm';
import { FinanceDocumentEntity } from './finance-document.entity.js';

export const PURCHASE_ORDER_STATUSES = ['draft', 'sent', 'partially_received', 'received', 'closed', 'cancelled'] as const;

/** An order the company placed with a supplier. */
@Entity('purchase_orders')
export class PurchaseOrder extends FinanceDocumentEntity {
  @Column({ type: 'text' })
  number: string;

  @Column({ type: 'text' })
  supplierName: string;

  @Column({ type: 'text' })
  status: (typeof PURCHASE_ORDER_STATUSES)[number];

  @Column({ type: 'date' })
  orderDate: string;

  @Column({ type: 'date', nullable: true })
  expectedDate: string | null;
}
