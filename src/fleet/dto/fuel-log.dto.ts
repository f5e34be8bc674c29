import { ApiProperty } from '@nestjs/swagger';
import { FUEL_LOG_FUEL_TYPES, FUEL_LOG_SOURCES, type FuelLogFuelType, type FuelLogSource } from '../fuel-log.entity.js';

/** One refuelling of a vehicle (GET /v1/fuel_logs). Carries driver and location data. */
export class FuelLogDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid', description: 'The vehicle fuelled (an id of GET /v1/vehicles).' })
  vehicle_id: string;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The employee who fuelled, when known; personal data.' })
  driver_id: string | null;

  @ApiProperty({
    enum: FUEL_LOG_SOURCES,
    description: '`manual`: entered by a person; `fuel_card`: a fuel-card transaction; `import`: a file import; `detected_refuel`: detected from telematics.',
  })
  source: FuelLogSource;

  @ApiProperty({ enum: FUEL_LOG_FUEL_TYPES })
  fuel_type: FuelLogFuelType;

  @ApiProperty({ type: 'number', minimum: 0.001, description: 'Litres, up to 3 decimals; always positive.', example: 54.37 })
  volume_litres: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Amount paid, in the minor unit of `currency`.' })
  cost_minor: number;

  @ApiProperty({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code.', example: 'EUR' })
  currency: string;

  @ApiProperty({ type: 'integer', nullable: true, minimum: 0, description: 'Odometer reading in kilometres at fuelling, when known.' })
  odometer_km: number | null;

  @ApiProperty({ type: String, nullable: true, example: 'Aral Berlin-Mitte' })
  station_name: string | null;

  @ApiProperty({ type: 'number', nullable: true, minimum: -90, maximum: 90, description: 'WGS 84 latitude of the fuelling; personal data.' })
  latitude: number | null;

  @ApiProperty({ type: 'number', nullable: true, minimum: -180, maximum: 180, description: 'WGS 84 longitude; null exactly when latitude is.' })
  longitude: number | null;

  @ApiProperty({ format: 'date-time', description: 'When the vehicle was fuelled (created_at is when it was recorded).' })
  fuelled_at: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}
