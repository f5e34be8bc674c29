import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Employee } from './employee.entity.js';
import { EmployeesController } from './employees.controller.js';
import { EmployeesService } from './employees.service.js';
import { HrDemoSeeder } from './hr-demo.seeder.js';
import { LeaveRequest } from './leave-request.entity.js';
import { LeaveRequestsController } from './leave-requests.controller.js';
import { LeaveRequestsService } from './leave-requests.service.js';
import { Timesheet } from './timesheet.entity.js';
import { TimesheetsController } from './timesheets.controller.js';
import { TimesheetsService } from './timesheets.service.js';

/** HR: employees, leave requests and timesheets (read-only through the API; personal data). */
@Module({
  imports: [TypeOrmModule.forFeature([Employee, LeaveRequest, Timesheet])],
  controllers: [EmployeesController, LeaveRequestsController, TimesheetsController],
  providers: [EmployeesService, LeaveRequestsService, TimesheetsService, HrDemoSeeder],
  exports: [HrDemoSeeder],
})
export class HrModule {}
