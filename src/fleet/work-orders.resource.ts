import { Scope } from '../platform/catalog/scopes.js';
import { readResource } from '../platform/resources/read-resource.js';
import { timestamp } from '../platform/resources/representation.js';
import { WorkOrderDto } from './dto/work-order.dto.js';
import { WorkOrder } from './work-order.entity.js';

export const workOrdersResource = readResource({
  name: 'work_orders',
  area: 'fleet',
  entity: WorkOrder,
  item: WorkOrderDto,
  scope: Scope.FmWorkOrdersRead,
  tag: 'Fleet',
  singular: 'work order',
  article: 'a',
  description: 'A maintenance or repair job on a vehicle: number (WO-…), title, type, status, priority, due date, vendor and costs.',
  searchable: ['number', 'title', 'vendor_name', 'description'],
  toResource: (order: WorkOrder): WorkOrderDto => ({
    id: order.id,
    number: order.number,
    vehicle_id: order.vehicleId,
    title: order.title,
    description: order.description,
    type: order.type,
    status: order.status,
    priority: order.priority,
    odometer_km: order.odometerKm,
    due_date: order.dueDate,
    vendor_name: order.vendorName,
    labor_cost_minor: order.laborCostMinor,
    parts_cost_minor: order.partsCostMinor,
    total_cost_minor: order.totalCostMinor,
    currency: order.currency,
    completed_at: timestamp(order.completedAt),
    created_at: timestamp(order.createdAt),
    updated_at: timestamp(order.updatedAt),
  }),
});

declare module '../platform/catalog/event-types.js' {
  interface EventDataModels {
    WorkOrderDto: WorkOrderDto;
  }
}
