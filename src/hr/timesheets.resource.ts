import { Scope } from '../platform/catalog/scopes.js';
import { readResource } from '../platform/resources/read-resource.js';
import { timestamp } from '../platform/resources/representation.js';
import { TimesheetDto } from './dto/timesheet.dto.js';
import { Timesheet } from './timesheet.entity.js';

export const timesheetsResource = readResource({
  name: 'timesheets',
  area: 'hr',
  entity: Timesheet,
  item: TimesheetDto,
  scope: Scope.HrTimesheetsRead,
  tag: 'HR',
  singular: 'timesheet',
  article: 'a',
  description: 'Hours an employee worked in one period: regular, overtime and total hours, and the approval status.',
  searchable: ['status', 'employee_id'],
  toResource: (sheet: Timesheet): TimesheetDto => ({
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
  }),
});

declare module '../platform/catalog/event-types.js' {
  interface EventDataModels {
    TimesheetDto: TimesheetDto;
  }
}
