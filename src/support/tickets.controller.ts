import { Controller, Inject, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { type AuthContext, CurrentAuth } from '../platform/auth/auth-context.js';
import { Scope } from '../platform/catalog/scopes.js';
import { type Page, type PageRequest, PageParams } from '../platform/pagination/page.js';
import { ListRoute, RetrieveRoute } from '../platform/resources/read-routes.decorator.js';
import { UuidPipe } from '../platform/validation/uuid.pipe.js';
import { TicketDto } from './dto/ticket.dto.js';
import { TicketsService } from './tickets.service.js';

@ApiTags('Support')
@Controller('v1/tickets')
export class TicketsController {
  constructor(@Inject(TicketsService) private readonly tickets: TicketsService) {}

  @ListRoute(Scope.SupportTicketsRead, TicketDto, 'List tickets')
  list(@CurrentAuth() auth: AuthContext, @PageParams() page: PageRequest): Promise<Page<TicketDto>> {
    return this.tickets.list(auth.tenantId, page);
  }

  @RetrieveRoute(Scope.SupportTicketsRead, TicketDto, 'Retrieve a ticket')
  retrieve(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string): Promise<TicketDto> {
    return this.tickets.get(auth.tenantId, id);
  }
}
