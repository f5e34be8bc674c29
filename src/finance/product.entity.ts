import { Column, Entity } from 'typeorm';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';

/** A product of the company's catalogue, which an invoice line may name. */
@Entity('products')
export class Product extends TenantOwnedEntity {
  @Column({ type: 'text' })
  name: string;
}
