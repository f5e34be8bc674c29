import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { FleetDemoSeeder } from './fleet-demo.seeder.js';
import { FuelLog } from './fuel-log.entity.js';
import { Vehicle } from './vehicle.entity.js';
import { WorkOrder } from './work-order.entity.js';

/** Fleet: vehicles, work orders and fuel logs (read-only through the API). */
@Module({
  imports: [TypeOrmModule.forFeature([Vehicle, WorkOrder, FuelLog])],
  providers: [FleetDemoSeeder],
  exports: [FleetDemoSeeder],
})
export class FleetModule {}
