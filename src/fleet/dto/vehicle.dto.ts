import { ApiProperty } from '@nestjs/swagger';
import { VEHICLE_FUEL_TYPES, VEHICLE_STATUSES, type VehicleFuelType, type VehicleStatus } from '../vehicle.entity.js';

/** A vehicle of the company's fleet (GET /v1/vehicles). */
export class VehicleDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ description: 'Licence plate as registered.', example: 'B-FM 4211' })
  registration: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Vehicle identification number (ISO 3779, 17 characters); null for assets without one.',
    example: 'WDB9066331S123456',
  })
  vin: string | null;

  @ApiProperty({ example: 'Mercedes-Benz' })
  make: string;

  @ApiProperty({ example: 'Sprinter' })
  model: string;

  @ApiProperty({ type: 'integer', description: 'Model year.', example: 2022 })
  year: number;

  @ApiProperty({ enum: VEHICLE_FUEL_TYPES })
  fuel_type: VehicleFuelType;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Last known odometer reading in kilometres.' })
  odometer_km: number;

  @ApiProperty({ enum: VEHICLE_STATUSES, description: '`maintenance`: in the workshop; `out_of_service`: not usable; `retired`: left the fleet.' })
  status: VehicleStatus;

  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The employee currently assigned as driver (an id of GET /v1/employees); personal data.',
  })
  assigned_driver_id: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}
