import { Scope } from '../platform/catalog/scopes.js';
import { readResource } from '../platform/resources/read-resource.js';
import { timestamp } from '../platform/resources/representation.js';
import { LeaveRequestDto } from './dto/leave-request.dto.js';
import { LeaveRequest } from './leave-request.entity.js';

export const leaveRequestsResource = readResource({
  name: 'leave_requests',
  area: 'hr',
  entity: LeaveRequest,
  item: LeaveRequestDto,
  scope: Scope.HrLeaveRequestsRead,
  tag: 'HR',
  singular: 'leave request',
  article: 'a',
  description: 'An absence request of an employee: type (annual, sick, ...), status, dates, days and approver.',
  searchable: ['type', 'status', 'employee_id'],
  toResource: (request: LeaveRequest): LeaveRequestDto => ({
    id: request.id,
    employee_id: request.employeeId,
    type: request.type,
    status: request.status,
    start_date: request.startDate,
    end_date: request.endDate,
    days: request.days,
    approver_id: request.approverId,
    decided_at: timestamp(request.decidedAt),
    created_at: timestamp(request.createdAt),
    updated_at: timestamp(request.updatedAt),
  }),
});

declare module '../platform/catalog/event-types.js' {
  interface EventDataModels {
    LeaveRequestDto: LeaveRequestDto;
  }
}
