import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type FinanceActor = { kind: 'api_key'; apiKeyId: string } | { kind: 'finance_application' };

/** One line of the finance audit trail: what happened to which record, why, and by whom. */
@Entity('finance_audit_trail')
export class FinanceAuditEntry {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  tenantId: string;

  @Column({ type: 'text' })
  entityType: 'invoice' | 'payment';

  @Column({ type: 'uuid' })
  entityId: string;

  @Column({ type: 'text' })
  action: string;

  @Column({ type: 'text', nullable: true })
  reason: string | null;

  @Column({ type: 'uuid', nullable: true })
  apiKeyId: string | null;

  @Column({ type: 'text' })
  actor: FinanceActor['kind'];

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
