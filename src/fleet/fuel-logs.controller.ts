import { Controller, Inject, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { type AuthContext, CurrentAuth } from '../platform/auth/auth-context.js';
import { Scope } from '../platform/catalog/scopes.js';
import { type Page, type PageRequest, PageParams } from '../platform/pagination/page.js';
import { ListRoute, RetrieveRoute } from '../platform/resources/read-routes.decorator.js';
import { UuidPipe } from '../platform/validation/uuid.pipe.js';
import { FuelLogDto } from './dto/fuel-log.dto.js';
import { FuelLogsService } from './fuel-logs.service.js';

@ApiTags('Fleet')
@Controller('v1/fuel_logs')
export class FuelLogsController {
  constructor(@Inject(FuelLogsService) private readonly fuelLogs: FuelLogsService) {}

  @ListRoute(Scope.FmFuelLogsRead, FuelLogDto, 'List fuel logs')
  list(@CurrentAuth() auth: AuthContext, @PageParams() page: PageRequest): Promise<Page<FuelLogDto>> {
    return this.fuelLogs.list(auth.tenantId, page);
  }

  @RetrieveRoute(Scope.FmFuelLogsRead, FuelLogDto, 'Retrieve a fuel log')
  retrieve(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string): Promise<FuelLogDto> {
    return this.fuelLogs.get(auth.tenantId, id);
  }
}
