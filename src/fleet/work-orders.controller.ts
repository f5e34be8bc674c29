import { Controller, Inject, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { type AuthContext, CurrentAuth } from '../platform/auth/auth-context.js';
import { Scope } from '../platform/catalog/scopes.js';
import { type Page, type PageRequest, PageParams } from '../platform/pagination/page.js';
import { ListRoute, RetrieveRoute } from '../platform/resources/read-routes.decorator.js';
import { UuidPipe } from '../platform/validation/uuid.pipe.js';
import { WorkOrderDto } from './dto/work-order.dto.js';
import { WorkOrdersService } from './work-orders.service.js';

@ApiTags('Fleet')
@Controller('v1/work_orders')
export class WorkOrdersController {
  constructor(@Inject(WorkOrdersService) private readonly workOrders: WorkOrdersService) {}

  @ListRoute(Scope.FmWorkOrdersRead, WorkOrderDto, 'List work orders')
  list(@CurrentAuth() auth: AuthContext, @PageParams() page: PageRequest): Promise<Page<WorkOrderDto>> {
    return this.workOrders.list(auth.tenantId, page);
  }

  @RetrieveRoute(Scope.FmWorkOrdersRead, WorkOrderDto, 'Retrieve a work order')
  retrieve(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string): Promise<WorkOrderDto> {
    return this.workOrders.get(auth.tenantId, id);
  }
}
