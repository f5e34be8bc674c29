import { ApiProperty } from '@nestjs/swagger';
import { EMPLOYMENT_STATUSES, EMPLOYMENT_TYPES, type EmploymentStatus, type EmploymentType } from '../employee.entity.js';

/** A person employed by the company (GET /v1/employees). Personal data throughout. */
export class EmployeeDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ description: 'Personnel number, unique in the company.', example: 'E-00042' })
  employee_number: string;

  @ApiProperty({ example: 'Jana' })
  first_name: string;

  @ApiProperty({ example: 'Nowak' })
  last_name: string;

  @ApiProperty({ format: 'email', example: 'jana.nowak@example.com' })
  work_email: string;

  @ApiProperty({ type: String, nullable: true, example: 'Fleet Coordinator' })
  job_title: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Operations' })
  department: string | null;

  @ApiProperty({ enum: EMPLOYMENT_TYPES })
  employment_type: EmploymentType;

  @ApiProperty({ enum: EMPLOYMENT_STATUSES, description: '`terminated` always has an end_date.' })
  employment_status: EmploymentStatus;

  @ApiProperty({ format: 'date', description: 'First day of employment (YYYY-MM-DD).' })
  start_date: string;

  @ApiProperty({ type: String, format: 'date', nullable: true, example: null, description: 'Last day of employment; set when terminated or for a fixed-term contract.' })
  end_date: string | null;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The employee this one reports to.' })
  manager_id: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}
