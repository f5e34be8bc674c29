import * as z from 'zod';
import { Scope } from '../platform/catalog/scopes.js';
import { countBy, total } from '../platform/resources/count-by.js';
import type { AreaSummary } from '../platform/resources/read-resource.js';

const output = z.object({
  pending_leave_requests: z.number().int().describe('Leave requests waiting for a decision.'),
  pending_leave_days: z.number().describe('Days those requests ask for.'),
  pending_leave_by_type: z.record(z.string(), z.number().int()),
  timesheets_awaiting_approval: z.number().int().describe('Timesheets submitted and not yet approved or rejected.'),
  timesheets_in_draft: z.number().int(),
  employees_by_status: z.record(z.string(), z.number().int()),
});

export const hrSummary: AreaSummary<z.infer<typeof output>> = {
  area: 'hr',
  title: 'HR summary',
  description:
    'What is pending in HR: leave requests waiting for a decision (count, days, by type), timesheets awaiting approval or still in draft, ' +
    'and employees by employment status. Then list the leave requests or timesheets for the records.',
  scopes: [Scope.HrLeaveRequestsRead, Scope.HrTimesheetsRead, Scope.HrEmployeesRead],
  output,
  async compute(scope) {
    const pendingByType = await countBy(scope, 'leave_requests', 'type', `status = 'pending'`);
    const [{ days }] = await scope.query<{ days: number }>(`SELECT coalesce(sum(days), 0)::float AS days FROM leave_requests WHERE tenant_id = $1 AND status = 'pending'`);
    const timesheets = await countBy(scope, 'timesheets', 'status');
    return {
      pending_leave_requests: total(pendingByType),
      pending_leave_days: days,
      pending_leave_by_type: pendingByType,
      timesheets_awaiting_approval: timesheets.submitted ?? 0,
      timesheets_in_draft: timesheets.draft ?? 0,
      employees_by_status: await countBy(scope, 'employees', 'employment_status'),
    };
  },
};
