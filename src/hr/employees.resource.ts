import { Scope } from '../platform/catalog/scopes.js';
import { readResource } from '../platform/resources/read-resource.js';
import { timestamp } from '../platform/resources/representation.js';
import { EmployeeDto } from './dto/employee.dto.js';
import { Employee } from './employee.entity.js';

export const employeesResource = readResource({
  name: 'employees',
  area: 'hr',
  entity: Employee,
  item: EmployeeDto,
  scope: Scope.HrEmployeesRead,
  tag: 'HR',
  singular: 'employee',
  article: 'an',
  description: 'A person employed by the company: employee number, name, work e-mail, job title, department, employment type and status, start and end dates, manager.',
  searchable: ['employee_number', 'first_name', 'last_name', 'work_email', 'job_title', 'department'],
  toResource: (employee: Employee): EmployeeDto => ({
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
  }),
});

declare module '../platform/catalog/event-types.js' {
  interface EventDataModels {
    EmployeeDto: EmployeeDto;
  }
}
