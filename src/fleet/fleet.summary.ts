import * as z from 'zod';
import { Scope } from '../platform/catalog/scopes.js';
import { countBy, total } from '../platform/resources/count-by.js';
import type { AreaSummary } from '../platform/resources/read-resource.js';

const OPEN_WORK_ORDER = `status IN ('open', 'scheduled', 'in_progress', 'on_hold')`;

const output = z.object({
  vehicles_by_status: z.record(z.string(), z.number().int()),
  open_work_orders: z.number().int().describe('Work orders open, scheduled, in progress or on hold.'),
  open_work_orders_by_priority: z.record(z.string(), z.number().int()),
  overdue_work_orders: z.number().int().describe('Open work orders past their due date.'),
});

export const fleetSummary: AreaSummary<z.infer<typeof output>> = {
  area: 'fleet',
  title: 'Fleet summary',
  description:
    'Vehicles by status (active, maintenance, out_of_service, retired) and open work orders: how many, by priority, and how many are overdue. ' +
    'Then list or search the work orders and vehicles for details.',
  scopes: [Scope.FmVehiclesRead, Scope.FmWorkOrdersRead],
  output,
  async compute(scope) {
    const byPriority = await countBy(scope, 'work_orders', 'priority', OPEN_WORK_ORDER);
    const overdueByPriority = await countBy(scope, 'work_orders', 'priority', `${OPEN_WORK_ORDER} AND due_date < (now() AT TIME ZONE 'UTC')::date`);
    return {
      vehicles_by_status: await countBy(scope, 'vehicles', 'status'),
      open_work_orders: total(byPriority),
      open_work_orders_by_priority: byPriority,
      overdue_work_orders: total(overdueByPriority),
    };
  },
};
