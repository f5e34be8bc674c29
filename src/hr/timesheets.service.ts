import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { Paginator } from '../platform/pagination/paginator.service.js';
import { ReadResourceService } from '../platform/resources/read-resource.service.js';
import { timestamp } from '../platform/resources/representation.js';
import type { TimesheetDto } from './dto/timesheet.dto.js';
import { Timesheet } from './timesheet.entity.js';

@Injectable()
export class TimesheetsService extends ReadResourceService<Timesheet, TimesheetDto> {
  protected readonly resource = 'timesheets';

  constructor(@InjectRepository(Timesheet) repository: Repository<Timesheet>, @Inject(Paginator) paginator: Paginator) {
    super(repository, paginator);
  }

  toResource(sheet: Timesheet): TimesheetDto {
    return {
      id: sheet.id,
      employee_id: sheet.employeeId,
      period_start_date: sheet.periodStartDate,
      period_end_date: sheet.periodEndDate,
      regular_hours: sheet.regularHours,
      overtime_hours: sheet.overtimeHours,
      // Both have two decimals: round away the binary floating-point remainder of the sum.
      total_hours: Math.round((sheet.regularHours + sheet.overtimeHours) * 100) / 100,
      status: sheet.status,
      submitted_at: timestamp(sheet.submittedAt),
      approved_at: timestamp(sheet.approvedAt),
      created_at: timestamp(sheet.createdAt),
      updated_at: timestamp(sheet.updatedAt),
    };
  }
}
