import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { Paginator } from '../platform/pagination/paginator.service.js';
import { ReadResourceService } from '../platform/resources/read-resource.service.js';
import type { PurchaseOrderDto } from './dto/purchase-order.dto.js';
import { purchaseOrderResource } from './finance.representation.js';
import { PurchaseOrder } from './purchase-order.entity.js';

@Injectable()
export class PurchaseOrdersService extends ReadResourceService<PurchaseOrder, PurchaseOrderDto> {
  protected readonly resource = 'purchase_orders';

  constructor(@InjectRepository(PurchaseOrder) repository: Repository<PurchaseOrder>, @Inject(Paginator) paginator: Paginator) {
    super(repository, paginator);
  }

  toResource(order: PurchaseOrder): PurchaseOrderDto {
    return purchaseOrderResource(order);
  }
}
