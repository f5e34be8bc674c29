import { Column, Entity } from 'typeorm';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';
import { minorUnits } from './columns.js';

export const INVOICE_STATUSES = ['draft', 'issued', 'partial', 'overdue', 'paid', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

@Entity('invoices')
export class Invoice extends TenantOwnedEntity {
  @Column({ type: 'text', nullable: true })
  number: string | null;

  @Column({ type: 'uuid' })
  customerId: string;

  @Column({ type: 'text' })
  status: InvoiceStatus;

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
