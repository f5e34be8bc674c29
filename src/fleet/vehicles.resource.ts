import { Scope } from '../platform/catalog/scopes.js';
import { readResource } from '../platform/resources/read-resource.js';
import { timestamp } from '../platform/resources/representation.js';
import { VehicleDto } from './dto/vehicle.dto.js';
import { Vehicle } from './vehicle.entity.js';

export const vehiclesResource = readResource({
  name: 'vehicles',
  area: 'fleet',
  entity: Vehicle,
  item: VehicleDto,
  scope: Scope.FmVehiclesRead,
  tag: 'Fleet',
  singular: 'vehicle',
  article: 'a',
  description: 'A vehicle of the fleet: registration, VIN, make and model, fuel type, odometer, status and assigned driver.',
  searchable: ['registration', 'vin', 'make', 'model'],
  toResource: (vehicle: Vehicle): VehicleDto => ({
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
  }),
});

declare module '../platform/catalog/event-types.js' {
  interface EventDataModels {
    VehicleDto: VehicleDto;
  }
}
