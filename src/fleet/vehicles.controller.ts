import { Controller, Inject, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { type AuthContext, CurrentAuth } from '../platform/auth/auth-context.js';
import { Scope } from '../platform/catalog/scopes.js';
import { type Page, type PageRequest, PageParams } from '../platform/pagination/page.js';
import { ListRoute, RetrieveRoute } from '../platform/resources/read-routes.decorator.js';
import { UuidPipe } from '../platform/validation/uuid.pipe.js';
import { VehicleDto } from './dto/vehicle.dto.js';
import { VehiclesService } from './vehicles.service.js';

@ApiTags('Fleet')
@Controller('v1/vehicles')
export class VehiclesController {
  constructor(@Inject(VehiclesService) private readonly vehicles: VehiclesService) {}

  @ListRoute(Scope.FmVehiclesRead, VehicleDto, 'List vehicles')
  list(@CurrentAuth() auth: AuthContext, @PageParams() page: PageRequest): Promise<Page<VehicleDto>> {
    return this.vehicles.list(auth.tenantId, page);
  }

  @RetrieveRoute(Scope.FmVehiclesRead, VehicleDto, 'Retrieve a vehicle')
  retrieve(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string): Promise<VehicleDto> {
    return this.vehicles.get(auth.tenantId, id);
  }
}
