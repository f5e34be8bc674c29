import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { Paginator } from '../platform/pagination/paginator.service.js';
import { ReadResourceService } from '../platform/resources/read-resource.service.js';
import { timestamp } from '../platform/resources/representation.js';
import type { VehicleDto } from './dto/vehicle.dto.js';
import { Vehicle } from './vehicle.entity.js';

@Injectable()
export class VehiclesService extends ReadResourceService<Vehicle, VehicleDto> {
  protected readonly resource = 'vehicles';

  constructor(@InjectRepository(Vehicle) repository: Repository<Vehicle>, @Inject(Paginator) paginator: Paginator) {
    super(repository, paginator);
  }

  toResource(vehicle: Vehicle): VehicleDto {
    return {
      id: vehicle.id,
      registration: vehicle.registration,
      vin: vehicle.vin,
      make: vehicle.make,
      model: vehicle.model,
      year: vehicle.year,
      fuel_type: vehicle.fuelType,
      odometer_km: vehicle.odometerKm,
      status: vehicle.status,
      assigned_driver_id: vehicle.assignedDriverId,
      created_at: timestamp(vehicle.createdAt),
      updated_at: timestamp(vehicle.updatedAt),
    };
  }
}
