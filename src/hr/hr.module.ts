import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Employee } from './employee.entity.js';
import { HrDemoSeeder } from './hr-demo.seeder.js';
import { LeaveRequest } from './leave-request.entity.js';
import { Timesheet } from './timesheet.entity.js';

/** HR: employees, leave requests and timesheets (read-only through the API; personal data). */
@Module({
  imports: [TypeOrmModule.forFeature([Employee, LeaveRequest, Timesheet])],
  providers: [HrDemoSeeder],
  exports: [HrDemoSeeder],
})
export class HrModule {}
