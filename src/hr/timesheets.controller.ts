import { Controller, Inject, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { type AuthContext, CurrentAuth } from '../platform/auth/auth-context.js';
import { Scope } from '../platform/catalog/scopes.js';
import { type Page, type PageRequest, PageParams } from '../platform/pagination/page.js';
import { ListRoute, RetrieveRoute } from '../platform/resources/read-routes.decorator.js';
import { UuidPipe } from '../platform/validation/uuid.pipe.js';
import { TimesheetDto } from './dto/timesheet.dto.js';
import { TimesheetsService } from './timesheets.service.js';

@ApiTags('HR')
@Controller('v1/timesheets')
export class TimesheetsController {
  constructor(@Inject(TimesheetsService) private readonly timesheets: TimesheetsService) {}

  @ListRoute(Scope.HrTimesheetsRead, TimesheetDto, 'List timesheets')
  list(@CurrentAuth() auth: AuthContext, @PageParams() page: PageRequest): Promise<Page<TimesheetDto>> {
    return this.timesheets.list(auth.tenantId, page);
  }

  @RetrieveRoute(Scope.HrTimesheetsRead, TimesheetDto, 'Retrieve a timesheet')
  retrieve(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string): Promise<TimesheetDto> {
    return this.timesheets.get(auth.tenantId, id);
  }
}
