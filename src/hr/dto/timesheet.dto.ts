import { ApiProperty } from '@nestjs/swagger';
import { TIMESHEET_STATUSES, type TimesheetStatus } from '../timesheet.entity.js';

/** Hours an employee worked in one period, usually a week (GET /v1/timesheets). */
export class TimesheetDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid', description: 'An id of GET /v1/employees.' })
  employee_id: string;

  @ApiProperty({ format: 'date', description: 'First day of the period (YYYY-MM-DD).', example: '2026-05-11' })
  period_start_date: string;

  @ApiProperty({ format: 'date', description: 'Last day of the period, inclusive.', example: '2026-05-17' })
  period_end_date: string;

  @ApiProperty({ type: 'number', minimum: 0, description: 'Hours within contract, two decimals.', example: 38.5 })
  regular_hours: number;

  @ApiProperty({ type: 'number', minimum: 0, description: 'Hours beyond contract, two decimals.', example: 2.25 })
  overtime_hours: number;

  @ApiProperty({ type: 'number', minimum: 0, description: 'regular_hours + overtime_hours.', example: 40.75 })
  total_hours: number;

  @ApiProperty({ enum: TIMESHEET_STATUSES })
  status: TimesheetStatus;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'Null exactly while the timesheet is a draft.' })
  submitted_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'Set exactly when status is `approved`.' })
  approved_at: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}
