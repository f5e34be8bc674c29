import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { numericColumn } from '../platform/resources/representation.js';

/** The reversing document a void posts: the voided invoice's amounts, credited in full. */
@Entity('credit_notes')
export class CreditNote {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  tenantId: string;

  @Column({ type: 'uuid' })
  invoiceId: string;

  @Column({ type: 'text' })
  number: string;

  @Column({ type: 'text' })
  currency: string;

  @Column({ type: 'bigint', transformer: numericColumn })
  subtotalMinor: number;

  @Column({ type: 'bigint', transformer: numericColumn })
  taxMinor: number;

  @Column({ type: 'bigint', transformer: numericColumn })
  totalMinor: number;

  @Column({ type: 'text', nullable: true })
  reason: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
