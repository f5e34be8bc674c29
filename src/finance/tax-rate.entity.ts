import { Column, Entity } from 'typeorm';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';

/** A tax rate of the company; `rate` is a percentage as decimal text (`19`, `7.5`). */
@Entity('tax_rates')
export class TaxRate extends TenantOwnedEntity {
  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'numeric' })
  rate: string;
}
