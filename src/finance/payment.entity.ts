import { Column, Entity } from 'typeorm';
import { numericColumn } from '../platform/resources/representation.js';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';

export const PAYMENT_DIRECTIONS = ['in', 'out'] as const;
export const PAYMENT_STATUSES = ['received', 'refunded', 'failed'] as const;

@Entity('payments')
export class Payment extends TenantOwnedEntity {
  @Column({ type: 'uuid', nullable: true })
  invoiceId: string | null;

  @Column({ type: 'uuid', nullable: true })
  billId: string | null;

  @Column({ type: 'bigint', transformer: numericColumn })
  amountMinor: number;

  @Column({ type: 'text' })
  currency: string;

  @Column({ type: 'text' })
  direction: (typeof PAYMENT_DIRECTIONS)[number];

  @Column({ type: 'text' })
  status: (typeof PAYMENT_STATUSES)[number];

  @Column({ type: 'timestamptz' })
  receivedAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  refundedAt: Date | null;

  @Column({ type: 'text', nullable: true })
  failureReason: string | null;
}
