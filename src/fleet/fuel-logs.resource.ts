import { Scope } from '../platform/catalog/scopes.js';
import { readResource } from '../platform/resources/read-resource.js';
import { timestamp } from '../platform/resources/representation.js';
import { FuelLogDto } from './dto/fuel-log.dto.js';
import { FuelLog } from './fuel-log.entity.js';

export const fuelLogsResource = readResource({
  name: 'fuel_logs',
  area: 'fleet',
  entity: FuelLog,
  item: FuelLogDto,
  scope: Scope.FmFuelLogsRead,
  tag: 'Fleet',
  singular: 'fuel log',
  article: 'a',
  description: 'One refuelling of a vehicle: source, fuel type, litres, cost, odometer, station and when.',
  searchable: ['station_name', 'source', 'fuel_type'],
  toResource: (log: FuelLog): FuelLogDto => ({
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
  }),
});

declare module '../platform/catalog/event-types.js' {
  interface EventDataModels {
    FuelLogDto: FuelLogDto;
  }
}
