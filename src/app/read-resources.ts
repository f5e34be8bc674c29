import { documentsResource } from '../documents/documents.resource.js';
import { billsResource } from '../finance/bills.resource.js';
import { invoicesResource } from '../finance/invoices.resource.js';
import { paymentsResource } from '../finance/payments.resource.js';
import { purchaseOrdersResource } from '../finance/purchase-orders.resource.js';
import { fuelLogsResource } from '../fleet/fuel-logs.resource.js';
import { vehiclesResource } from '../fleet/vehicles.resource.js';
import { workOrdersResource } from '../fleet/work-orders.resource.js';
import { employeesResource } from '../hr/employees.resource.js';
import { leaveRequestsResource } from '../hr/leave-requests.resource.js';
import { timesheetsResource } from '../hr/timesheets.resource.js';
import type { ReadResource } from '../platform/resources/read-resource.js';
import { ticketsResource } from '../support/tickets.resource.js';

/**
 * The registry of readable resources: one line per resource. The REST list/retrieve routes,
 * their OpenAPI operations and the agent-tool server's tools are derived from it, in this order
 * (which is also the order of `tools/list`; the area summaries follow, see area-summaries.ts).
 */
// `any`: each resource has its own entity and DTO types; the declarations themselves are typed.
export const READ_RESOURCES: readonly ReadResource<any, any>[] = [
  invoicesResource,
  paymentsResource,
  billsResource,
  purchaseOrdersResource,
  workOrdersResource,
  vehiclesResource,
  fuelLogsResource,
  employeesResource,
  leaveRequestsResource,
  timesheetsResource,
  ticketsResource,
  documentsResource,
];

