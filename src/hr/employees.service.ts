import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { Paginator } from '../platform/pagination/paginator.service.js';
import { ReadResourceService } from '../platform/resources/read-resource.service.js';
import { timestamp } from '../platform/resources/representation.js';
import type { EmployeeDto } from './dto/employee.dto.js';
import { Employee } from './employee.entity.js';

@Injectable()
export class EmployeesService extends ReadResourceService<Employee, EmployeeDto> {
  protected readonly resource = 'employees';

  constructor(@InjectRepository(Employee) repository: Repository<Employee>, @Inject(Paginator) paginator: Paginator) {
    super(repository, paginator);
  }

  toResource(employee: Employee): EmployeeDto {
    return {
      id: employee.id,
      employee_number: employee.employeeNumber,
      first_name: employee.firstName,
      last_name: employee.lastName,
      work_email: employee.workEmail,
      job_title: employee.jobTitle,
      department: employee.department,
      employment_type: employee.employmentType,
      employment_status: employee.employmentStatus,
      start_date: employee.startDate,
      end_date: employee.endDate,
      manager_id: employee.managerId,
      created_at: timestamp(employee.createdAt),
      updated_at: timestamp(employee.updatedAt),
    };
  }
}
