import { Column, Entity } from 'typeorm';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';

export const EMPLOYMENT_TYPES = ['full_time', 'part_time', 'contractor', 'temporary', 'intern'] as const;
export type EmploymentType = (typeof EMPLOYMENT_TYPES)[number];

export const EMPLOYMENT_STATUSES = ['active', 'on_leave', 'terminated'] as const;
export type EmploymentStatus = (typeof EMPLOYMENT_STATUSES)[number];

@Entity('employees')
export class Employee extends TenantOwnedEntity {
  @Column({ type: 'text' })
  employeeNumber: string;

  @Column({ type: 'text' })
  firstName: string;

  @Column({ type: 'text' })
  lastName: string;

  @Column({ type: 'text' })
  workEmail: string;

  @Column({ type: 'text', nullable: true })
  jobTitle: string | null;

  @Column({ type: 'text', nullable: true })
  department: string | null;

  @Column({ type: 'text' })
  employmentType: EmploymentType;

  @Column({ type: 'text' })
  employmentStatus: EmploymentStatus;

  @Column({ type: 'date' })
  startDate: string;

  @Column({ type: 'date', nullable: true })
  endDate: string | null;

  @Column({ type: 'uuid', nullable: true })
  managerId: string | null;
}
