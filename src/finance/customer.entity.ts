import { Column, Entity } from 'typeorm';
import { TenantOwnedEntity } from '../platform/resources/tenant-owned.entity.js';

/** A customer of the company; invoices name one. Managed in the applications, not the API. */
@Entity('customers')
export class Customer extends TenantOwnedEntity {
  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', nullable: true })
  email: string | null;
}
