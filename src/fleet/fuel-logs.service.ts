import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { Paginator } from '../platform/pagination/paginator.service.js';
import { ReadResourceService } from '../platform/resources/read-resource.service.js';
import { timestamp } from '../platform/resources/representation.js';
import type { FuelLogDto } from './dto/fuel-log.dto.js';
import { FuelLog } from './fuel-log.entity.js';

@Injectable()
export class FuelLogsService extends ReadResourceService<FuelLog, FuelLogDto> {
  protected readonly resource = 'fuel_logs';

  constructor(@InjectRepository(FuelLog) repository: Repository<FuelLog>, @Inject(Paginator) paginator: Paginator) {
    super(repository, paginator);
  }

  toResource(log: FuelLog): FuelLogDto {
    return {
      id: log.id,
      vehicle_id: log.vehicleId,
      driver_id: log.driverId,
      source: log.source,
      fuel_type: log.fuelType,
      volume_litres: log.volumeLitres,
      cost_minor: log.costMinor,
      currency: log.currency,
      odometer_km: log.odometerKm,
      station_name: log.stationName,
      latitude: log.latitude,
      longitude: log.longitude,
      fuelled_at: timestamp(log.fuelledAt),
      created_at: timestamp(log.createdAt),
      updated_at: timestamp(log.updatedAt),
    };
  }
}
