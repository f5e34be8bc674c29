import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Tenant } from '../platform/tenancy/tenant.entity.js';
import { isUuid } from '../platform/validation/uuid.pipe.js';
import { Customer } from './customer.entity.js';
import { formatDecimal, MAX_TAX_RATE, parseDecimal } from './invoice-totals.js';
import { Product } from './product.entity.js';
import { TaxRate } from './tax-rate.entity.js';

const RATE = /^\d{1,3}(\.\d{1,6})?$/;

/**
 * Customers, products and tax rates: reference data the company keeps in the applications
 * (the API has no endpoints for them). Used by the admin CLI and the demo seeder.
 */
@Injectable()
export class ReferenceDataService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async createCustomer(tenantId: string, name = 'Customer'): Promise<Customer> {
    await this.assertTenant(tenantId);
    return this.dataSource.getRepository(Customer).save({ tenantId, name, email: null });
  }

  async createProduct(tenantId: string, name = 'Product'): Promise<Product> {
    await this.assertTenant(tenantId);
    return this.dataSource.getRepository(Product).save({ tenantId, name });
  }

  /** `rate` is a percentage as decimal text, 0 to 100 (`19`, `7.5`). */
  async createTaxRate(tenantId: string, rate: string, name?: string): Promise<TaxRate> {
    const decimal = RATE.test(rate) ? parseDecimal(rate) : null;
    if (decimal === null || Number(rate) > MAX_TAX_RATE) throw new Error(`The rate must be a percentage from 0 to ${MAX_TAX_RATE}, not ${rate}`);
    await this.assertTenant(tenantId);
    const text = formatDecimal(decimal);
    return this.dataSource.getRepository(TaxRate).save({ tenantId, rate: text, name: name ?? `${text} %` });
  }

  private async assertTenant(tenantId: string): Promise<void> {
    if (!isUuid(tenantId) || !(await this.dataSource.getRepository(Tenant).existsBy({ id: tenantId }))) {
      throw new Error(`Tenant ${tenantId} not found`);
    }
  }
}
