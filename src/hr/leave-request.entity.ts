import { Column, Entity } from 'typeorm';
import { numericColumn } from '../platform/resources/representation.js';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';

export const LEAVE_TYPES = ['annual', 'sick', 'parental', 'unpaid', 'other'] as const;
export type LeaveType = (typeof LEAVE_TYPES)[number];

export const LEAVE_STATUSES = ['pending', 'approved', 'rejected', 'cancelled'] as const;
export type LeaveStatus = (typeof LEAVE_STATUSES)[number];

@Entity('leave_requests')
export class LeaveRequest extends TenantOwnedEntity {
  @Column({ type: 'uuid' })
  employeeId: string;

  @Column({ type: 'text' })
  type: LeaveType;

  @Column({ type: 'text' })
  status: LeaveStatus;

  @Column({ type: 'date' })
  startDate: string;

  @Column({ type: 'date' })
  endDate: string;

  @Column({ type: 'numeric', precision: 5, scale: 1, transformer: numericColumn })
  days: number;

  @Column({ type: 'uuid', nullable: true })
  approverId: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  decidedAt: Date | null;
}
