import { Column, Entity } from 'typeorm';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';
import { minorUnits } from './columns.js';

export const PURCHASE_ORDER_STATUSES = ['draft', 'sent', 'partially_received', 'received', 'closed', 'cancelled'] as const;

/** An order the company placed with a supplier. */
@Entity('purchase_orders')
export class PurchaseOrder extends TenantOwnedEntity {
  @Column({ type: 'text' })
  number: string;

  @Column({ type: 'text' })
  supplierName: string;

  @Column({ type: 'text' })
  status: (typeof PURCHASE_ORDER_STATUSES)[number];

  @Column({ type: 'text' })
  currency: string;

  @Column({ type: 'bigint', transformer: minorUnits })
  subtotalMinor: number;

  @Column({ type: 'bigint', transformer: minorUnits })
  taxMinor: number;

  @Column({ type: 'bigint', transformer: minorUnits })
  totalMinor: number;

  @Column({ type: 'date' })
  orderDate: string;

  @Column({ type: 'date', nullable: true })
  expectedDate: string | null;
}
