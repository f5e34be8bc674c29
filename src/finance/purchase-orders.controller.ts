import { Controller, Inject, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { type AuthContext, CurrentAuth } from '../platform/auth/auth-context.js';
import { Scope } from '../platform/catalog/scopes.js';
import { type PageRequest, PageParams } from '../platform/pagination/page.js';
import { ListRoute, RetrieveRoute } from '../platform/resources/read-routes.decorator.js';
import { UuidPipe } from '../platform/validation/uuid.pipe.js';
import { PurchaseOrderDto } from './dto/purchase-order.dto.js';
import { PurchaseOrdersService } from './purchase-orders.service.js';

@ApiTags('Purchase orders')
@Controller('v1/purchase_orders')
export class PurchaseOrdersController {
  constructor(@Inject(PurchaseOrdersService) private readonly orders: PurchaseOrdersService) {}

  @ListRoute(Scope.FinPurchaseOrdersRead, PurchaseOrderDto, 'List purchase orders')
  list(@CurrentAuth() auth: AuthContext, @PageParams() page: PageRequest) {
    return this.orders.list(auth.tenantId, page);
  }

  @RetrieveRoute(Scope.FinPurchaseOrdersRead, PurchaseOrderDto, 'Retrieve a purchase order')
  get(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string) {
    return this.orders.get(auth.tenantId, id);
  }
}
