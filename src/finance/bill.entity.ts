import { Column, Entity } from 'typeorm';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';
import { minorUnits } from './columns.js';

export const BILL_STATUSES = ['draft', 'open', 'partial', 'overdue', 'paid', 'void'] as const;

/** A supplier's invoice to the company; `number` is the supplier's document number. */
@Entity('bills')
export class Bill extends TenantOwnedEntity {
  @Column({ type: 'text' })
  number: string;

  @Column({ type: 'text' })
  supplierName: string;

  @Column({ type: 'uuid', nullable: true })
  purchaseOrderId: string | null;

  @Column({ type: 'text' })
  status: (typeof BILL_STATUSES)[number];

  @Column({ type: 'text' })
  currency: string;

  @Column({ type: 'bigint', transformer: minorUnits })
  subtotalMinor: number;

  @Column({ type: 'bigint', transformer: minorUnits })
  taxMinor: number;

  @Column({ type: 'bigint', transformer: minorUnits })
  totalMinor: number;

  @Column({ type: 'bigint', transformer: minorUnits })
  paidMinor: number;

  @Column({ type: 'bigint', transformer: minorUnits })
  balanceMinor: number;

  @Column({ type: 'date' })
  issueDate: string;

  @Column({ type: 'date' })
  dueDate: string;
}
