import { ApiProperty } from '@nestjs/swagger';
import {
  WORK_ORDER_PRIORITIES,
  WORK_ORDER_STATUSES,
  WORK_ORDER_TYPES,
  type WorkOrderPriority,
  type WorkOrderStatus,
  type WorkOrderType,
} from '../work-order.entity.js';

/** A maintenance or repair job on a vehicle (GET /v1/work_orders). */
export class WorkOrderDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ description: 'Human-readable number, unique in the company.', example: 'WO-000042' })
  number: string;

  @ApiProperty({ format: 'uuid', description: 'The vehicle worked on (an id of GET /v1/vehicles).' })
  vehicle_id: string;

  @ApiProperty({ example: 'Annual service' })
  title: string;

  @ApiProperty({ type: String, nullable: true, example: 'Replace front brake pads and discs' })
  description: string | null;

  @ApiProperty({ enum: WORK_ORDER_TYPES })
  type: WorkOrderType;

  @ApiProperty({ enum: WORK_ORDER_STATUSES })
  status: WorkOrderStatus;

  @ApiProperty({ enum: WORK_ORDER_PRIORITIES })
  priority: WorkOrderPriority;

  @ApiProperty({ type: 'integer', nullable: true, minimum: 0, description: 'Odometer reading in kilometres when the work order was opened.' })
  odometer_km: number | null;

  @ApiProperty({ type: String, format: 'date', nullable: true, description: 'YYYY-MM-DD by which the work is due.' })
  due_date: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Autohaus Weber GmbH', description: 'External workshop doing the work; null when done in-house.' })
  vendor_name: string | null;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Labour cost in the minor unit of `currency`.', example: 8000 })
  labor_cost_minor: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Parts cost in the minor unit of `currency`.', example: 4000 })
  parts_cost_minor: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'labor_cost_minor + parts_cost_minor.', example: 12000 })
  total_cost_minor: number;

  @ApiProperty({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code.', example: 'EUR' })
  currency: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'Set exactly when status is `completed`.' })
  completed_at: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}
