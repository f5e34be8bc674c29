import { Column, Entity } from 'typeorm';
import { numericColumn } from '../platform/resources/representation.js';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';

export const WORK_ORDER_TYPES = ['preventive', 'repair', 'inspection', 'tyres', 'recall'] as const;
export type WorkOrderType = (typeof WORK_ORDER_TYPES)[number];

export const WORK_ORDER_STATUSES = ['open', 'scheduled', 'in_progress', 'on_hold', 'completed', 'cancelled'] as const;
export type WorkOrderStatus = (typeof WORK_ORDER_STATUSES)[number];

export const WORK_ORDER_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type WorkOrderPriority = (typeof WORK_ORDER_PRIORITIES)[number];

@Entity('work_orders')
export class WorkOrder extends TenantOwnedEntity {
  @Column({ type: 'text' })
  number: string;

  @Column({ type: 'uuid' })
  vehicleId: string;

  @Column({ type: 'text' })
  title: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'text' })
  type: WorkOrderType;

  @Column({ type: 'text' })
  status: WorkOrderStatus;

  @Column({ type: 'text' })
  priority: WorkOrderPriority;

  @Column({ type: 'integer', nullable: true })
  odometerKm: number | null;

  @Column({ type: 'date', nullable: true })
  dueDate: string | null;

  @Column({ type: 'text', nullable: true })
  vendorName: string | null;

  @Column({ type: 'bigint', transformer: numericColumn })
  laborCostMinor: number;

  @Column({ type: 'bigint', transformer: numericColumn })
  partsCostMinor: number;

  @Column({ type: 'bigint', transformer: numericColumn })
  totalCostMinor: number;

  @Column({ type: 'text' })
  currency: string;

  @Column({ type: 'timestamptz', nullable: true })
  completedAt: Date | null;
}
