import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { Paginator } from '../platform/pagination/paginator.service.js';
import { ReadResourceService } from '../platform/resources/read-resource.service.js';
import { timestamp } from '../platform/resources/representation.js';
import type { WorkOrderDto } from './dto/work-order.dto.js';
import { WorkOrder } from './work-order.entity.js';

@Injectable()
export class WorkOrdersService extends ReadResourceService<WorkOrder, WorkOrderDto> {
  protected readonly resource = 'work_orders';

  constructor(@InjectRepository(WorkOrder) repository: Repository<WorkOrder>, @Inject(Paginator) paginator: Paginator) {
    super(repository, paginator);
  }

  toResource(order: WorkOrder): WorkOrderDto {
    return {
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
    };
  }
}
