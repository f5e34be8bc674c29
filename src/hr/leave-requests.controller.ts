import { Controller, Inject, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { type AuthContext, CurrentAuth } from '../platform/auth/auth-context.js';
import { Scope } from '../platform/catalog/scopes.js';
import { type Page, type PageRequest, PageParams } from '../platform/pagination/page.js';
import { ListRoute, RetrieveRoute } from '../platform/resources/read-routes.decorator.js';
import { UuidPipe } from '../platform/validation/uuid.pipe.js';
import { LeaveRequestDto } from './dto/leave-request.dto.js';
import { LeaveRequestsService } from './leave-requests.service.js';

@ApiTags('HR')
@Controller('v1/leave_requests')
export class LeaveRequestsController {
  constructor(@Inject(LeaveRequestsService) private readonly leaveRequests: LeaveRequestsService) {}

  @ListRoute(Scope.HrLeaveRequestsRead, LeaveRequestDto, 'List leave requests')
  list(@CurrentAuth() auth: AuthContext, @PageParams() page: PageRequest): Promise<Page<LeaveRequestDto>> {
    return this.leaveRequests.list(auth.tenantId, page);
  }

  @RetrieveRoute(Scope.HrLeaveRequestsRead, LeaveRequestDto, 'Retrieve a leave request')
  retrieve(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string): Promise<LeaveRequestDto> {
    return this.leaveRequests.get(auth.tenantId, id);
  }
}
