import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { FleetDemoSeeder } from './fleet-demo.seeder.js';
import { FuelLog } from './fuel-log.entity.js';
import { FuelLogsController } from './fuel-logs.controller.js';
import { FuelLogsService } from './fuel-logs.service.js';
import { Vehicle } from './vehicle.entity.js';
import { VehiclesController } from './vehicles.controller.js';
import { VehiclesService } from './vehicles.service.js';
import { WorkOrder } from './work-order.entity.js';
import { WorkOrdersController } from './work-orders.controller.js';
import { WorkOrdersService } from './work-orders.service.js';

/** Fleet: vehicles, work orders and fuel logs (read-only through the API). */
@Module({
  imports: [TypeOrmModule.forFeature([Vehicle, WorkOrder, FuelLog])],
  controllers: [VehiclesController, WorkOrdersController, FuelLogsController],
  providers: [VehiclesService, WorkOrdersService, FuelLogsService, FleetDemoSeeder],
  exports: [FleetDemoSeeder],
})
export class FleetModule {}
