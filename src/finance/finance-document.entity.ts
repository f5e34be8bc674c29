import { Column } from 'typeorm';
import { numericColumn } from '../platform/resources/representation.js';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';

/** The amount columns of a finance document: one currency, total_minor = subtotal_minor + tax_minor. */
export abstract class FinanceDocumentEntity extends TenantOwnedEntity {
  @Column({ type: 'text' })
  currency: string;

  @Column({ type: 'bigint', transformer: numericColumn })
  subtotalMinor: number;

  @Column({ type: 'bigint', transformer: numericColumn })
  taxMinor: number;

  @Column({ type: 'bigint', transformer: numericColumn })
  totalMinor: number;
}

/** A document settled by payments: balance_minor = total_minor − paid_minor, 0 once void. */
export abstract class PayableDocumentEntity extends FinanceDocumentEntity {
  @Column({ type: 'bigint', transformer: numericColumn })
  paidMinor: number;

  @Column({ type: 'bigint', transformer: numericColumn })
  balanceMinor: number;
}
