import { Controller, Inject, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { type AuthContext, CurrentAuth } from '../platform/auth/auth-context.js';
import { Scope } from '../platform/catalog/scopes.js';
import { type Page, type PageRequest, PageParams } from '../platform/pagination/page.js';
import { ListRoute, RetrieveRoute } from '../platform/resources/read-routes.decorator.js';
import { UuidPipe } from '../platform/validation/uuid.pipe.js';
import { EmployeeDto } from './dto/employee.dto.js';
import { EmployeesService } from './employees.service.js';

@ApiTags('HR')
@Controller('v1/employees')
export class EmployeesController {
  constructor(@Inject(EmployeesService) private readonly employees: EmployeesService) {}

  @ListRoute(Scope.HrEmployeesRead, EmployeeDto, 'List employees')
  list(@CurrentAuth() auth: AuthContext, @PageParams() page: PageRequest): Promise<Page<EmployeeDto>> {
    return this.employees.list(auth.tenantId, page);
  }

  @RetrieveRoute(Scope.HrEmployeesRead, EmployeeDto, 'Retrieve an employee')
  retrieve(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string): Promise<EmployeeDto> {
    return this.employees.get(auth.tenantId, id);
  }
}
