import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { EventEnvelope } from './event-envelope.js';

/** An outbox row: written with the change it describes, relayed to delivery by the worker. */
@Entity('events')
export class OutboxEvent {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ type: 'uuid' })
  tenantId: string;

  @Column({ type: 'text' })
  type: string;

  @Column({ type: 'jsonb' })
  envelope: EventEnvelope;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  dispatchedAt: Date | null;

  /** A test event: delivered to the one endpoint that asked for it, never fanned out, not in the feed. */
  @Column({ type: 'boolean', default: false })
  test: boolean;
}
