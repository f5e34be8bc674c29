import { Controller, Inject, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { type AuthContext, CurrentAuth } from '../platform/auth/auth-context.js';
import { Scope } from '../platform/catalog/scopes.js';
import { type PageRequest, PageParams } from '../platform/pagination/page.js';
import { ListRoute, RetrieveRoute } from '../platform/resources/read-routes.decorator.js';
import { UuidPipe } from '../platform/validation/uuid.pipe.js';
import { BillsService } from './bills.service.js';
import { BillDto } from './dto/bill.dto.js';

@ApiTags('Bills')
@Controller('v1/bills')
export class BillsController {
  constructor(@Inject(BillsService) private readonly bills: BillsService) {}

  @ListRoute(Scope.FinBillsRead, BillDto, 'List bills')
  list(@CurrentAuth() auth: AuthContext, @PageParams() page: PageRequest) {
    return this.bills.list(auth.tenantId, page);
  }

  @RetrieveRoute(Scope.FinBillsRead, BillDto, 'Retrieve a bill')
  get(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string) {
    return this.bills.get(auth.tenantId, id);
  }
}
