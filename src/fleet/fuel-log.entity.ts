import { Column, Entity } from 'typeorm';
import { numericColumn } from '../platform/resources/representation.js';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';

/** Where a fuel log came from: typed in, a fuel-card transaction, a file import, or telematics. */
export const FUEL_LOG_SOURCES = ['manual', 'fuel_card', 'import', 'detected_refuel'] as const;
export type FuelLogSource = (typeof FUEL_LOG_SOURCES)[number];

export const FUEL_LOG_FUEL_TYPES = ['diesel', 'petrol', 'lpg', 'cng', 'adblue'] as const;
export type FuelLogFuelType = (typeof FUEL_LOG_FUEL_TYPES)[number];

@Entity('fuel_logs')
export class FuelLog extends TenantOwnedEntity {
  @Column({ type: 'uuid' })
  vehicleId: string;

  @Column({ type: 'uuid', nullable: true })
  driverId: string | null;

  @Column({ type: 'text' })
  source: FuelLogSource;

  @Column({ type: 'text' })
  fuelType: FuelLogFuelType;

  @Column({ type: 'numeric', precision: 9, scale: 3, transformer: numericColumn })
  volumeLitres: number;

  @Column({ type: 'bigint', transformer: numericColumn })
  costMinor: number;

  @Column({ type: 'text' })
  currency: string;

  @Column({ type: 'integer', nullable: true })
  odometerKm: number | null;

  @Column({ type: 'text', nullable: true })
  stationName: string | null;

  @Column({ type: 'numeric', precision: 8, scale: 6, nullable: true, transformer: numericColumn })
  latitude: number | null;

  @Column({ type: 'numeric', precision: 9, scale: 6, nullable: true, transformer: numericColumn })
  longitude: number | null;

  @Column({ type: 'timestamptz' })
  fuelledAt: Date;
}
