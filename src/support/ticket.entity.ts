import { Column, Entity } from 'typeorm';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';

export const TICKET_STATUSES = ['new', 'open', 'pending', 'on_hold', 'solved', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export const TICKET_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];

export const TICKET_CHANNELS = ['email', 'web', 'phone', 'chat', 'api'] as const;
export type TicketChannel = (typeof TICKET_CHANNELS)[number];

@Entity('tickets')
export class Ticket extends TenantOwnedEntity {
  @Column({ type: 'text' })
  number: string;

  @Column({ type: 'text' })
  subject: string;

  @Column({ type: 'text' })
  status: TicketStatus;

  @Column({ type: 'text' })
  priority: TicketPriority;

  @Column({ type: 'text' })
  channel: TicketChannel;

  @Column({ type: 'text', nullable: true })
  requesterName: string | null;

  @Column({ type: 'text' })
  requesterEmail: string;

  @Column({ type: 'uuid', nullable: true })
  assigneeId: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  firstResponseAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  solvedAt: Date | null;
}
