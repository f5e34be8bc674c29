import { ApiProperty } from '@nestjs/swagger';
import { LEAVE_STATUSES, LEAVE_TYPES, type LeaveStatus, type LeaveType } from '../leave-request.entity.js';

/** An employee's request for time off (GET /v1/leave_requests). */
export class LeaveRequestDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid', description: 'The employee asking for leave (an id of GET /v1/employees).' })
  employee_id: string;

  @ApiProperty({ enum: LEAVE_TYPES })
  type: LeaveType;

  @ApiProperty({ enum: LEAVE_STATUSES })
  status: LeaveStatus;

  @ApiProperty({ format: 'date', description: 'First day of leave (YYYY-MM-DD).', example: '2026-05-18' })
  start_date: string;

  @ApiProperty({ format: 'date', description: 'Last day of leave, inclusive; not before start_date.', example: '2026-05-20' })
  end_date: string;

  @ApiProperty({ type: 'number', multipleOf: 0.5, minimum: 0.5, description: 'Working days taken, in half days.', example: 3 })
  days: number;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The employee who decided, once decided (kept when a decided request is cancelled).' })
  approver_id: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'When it was approved or rejected; null while pending, and for a request cancelled before a decision (one cancelled after it keeps it).' })
  decided_at: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}
