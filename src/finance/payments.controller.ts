import { Controller, Inject, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { type AuthContext, CurrentAuth } from '../platform/auth/auth-context.js';
import { Scope } from '../platform/catalog/scopes.js';
import { type PageRequest, PageParams } from '../platform/pagination/page.js';
import { ListRoute, RetrieveRoute } from '../platform/resources/read-routes.decorator.js';
import { UuidPipe } from '../platform/validation/uuid.pipe.js';
import { PaymentDto } from './dto/payment.dto.js';
import { PaymentsService } from './payments.service.js';

@ApiTags('Payments')
@Controller('v1/payments')
export class PaymentsController {
  constructor(@Inject(PaymentsService) private readonly payments: PaymentsService) {}

  @ListRoute(Scope.FinPaymentsRead, PaymentDto, 'List payments')
  list(@CurrentAuth() auth: AuthContext, @PageParams() page: PageRequest) {
    return this.payments.list(auth.tenantId, page);
  }

  @RetrieveRoute(Scope.FinPaymentsRead, PaymentDto, 'Retrieve a payment')
  get(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string) {
    return this.payments.get(auth.tenantId, id);
  }
}
