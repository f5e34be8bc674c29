import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { numericColumn } from '../platform/resources/representation.js';

/** One line of an invoice, with its computed amounts; `qty` and `taxRate` are decimal text. */
@Entity('invoice_lines')
export class InvoiceLine {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  tenantId: string;

  @Column({ type: 'uuid' })
  invoiceId: string;

  @Column({ type: 'integer' })
  position: number;

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'numeric' })
  qty: string;

  @Column({ type: 'bigint', transformer: numericColumn })
  unitPriceMinor: number;

  @Column({ type: 'numeric' })
  taxRate: string;

  @Column({ type: 'uuid', nullable: true })
  productId: string | null;

  @Column({ type: 'uuid', nullable: true })
  taxRateId: string | null;

  @Column({ type: 'bigint', transformer: numericColumn })
  netMinor: number;

  @Column({ type: 'bigint', transformer: numericColumn })
  taxMinor: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
