import { Column, Entity } from 'typeorm';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';

export const VEHICLE_FUEL_TYPES = ['diesel', 'petrol', 'hybrid', 'electric', 'lpg', 'cng'] as const;
export type VehicleFuelType = (typeof VEHICLE_FUEL_TYPES)[number];

export const VEHICLE_STATUSES = ['active', 'maintenance', 'out_of_service', 'retired'] as const;
export type VehicleStatus = (typeof VEHICLE_STATUSES)[number];

@Entity('vehicles')
export class Vehicle extends TenantOwnedEntity {
  @Column({ type: 'text' })
  registration: string;

  @Column({ type: 'text', nullable: true })
  vin: string | null;

  @Column({ type: 'text' })
  make: string;

  @Column({ type: 'text' })
  model: string;

  @Column({ type: 'integer' })
  year: number;

  @Column({ type: 'text' })
  fuelType: VehicleFuelType;

  @Column({ type: 'integer' })
  odometerKm: number;

  @Column({ type: 'text' })
  status: VehicleStatus;

  @Column({ type: 'uuid', nullable: true })
  assignedDriverId: string | null;
}
