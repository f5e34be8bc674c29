import { Column, Entity } from 'typeorm';
import { numericColumn } from '../platform/resources/representation.js';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';

export const TIMESHEET_STATUSES = ['draft', 'submitted', 'approved', 'rejected'] as const;
export type TimesheetStatus = (typeof TIMESHEET_STATUSES)[number];

@Entity('timesheets')
export class Timesheet extends TenantOwnedEntity {
  @Column({ type: 'uuid' })
  employeeId: string;

  @Column({ type: 'date' })
  periodStartDate: string;

  @Column({ type: 'date' })
  periodEndDate: string;

  @Column({ type: 'numeric', precision: 6, scale: 2, transformer: numericColumn })
  regularHours: number;

  @Column({ type: 'numeric', precision: 6, scale: 2, transformer: numericColumn })
  overtimeHours: number;

  @Column({ type: 'text' })
  status: TimesheetStatus;

  @Column({ type: 'timestamptz', nullable: true })
  submittedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  approvedAt: Date | null;
}
