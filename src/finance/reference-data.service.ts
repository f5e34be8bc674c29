import { Inject, Injectable } from '@nestjs/common';
import { DomainException } from '../platform/errors/domain.exception.js';
import { TenantData, type TenantScope } from '../platform/tenancy/tenant-data.js';
import { checkedName } from '../platform/validation/names.js';
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
  constructor(@Inject(TenantData) private readonly data: TenantData) {}

  async createCustomer(tenantId: string, name = 'Customer'): Promise<Customer> {
    return (await this.existingTenant(tenantId)).repository(Customer).save({ name: checkedName(name), email: null });
  }

  async createProduct(tenantId: string, name = 'Product'): Promise<Product> {
    return (await this.existingTenant(tenantId)).repository(Product).save({ name: checkedName(name) });
  }

  /** `rate` is a percentage as decimal text, 0 to 100 with at most 6 decimals (`19`, `7.5`). */
  async createTaxRate(tenantId: string, rate: string, name?: string): Promise<TaxRate> {
    const decimal = RATE.test(rate) ? parseDecimal(rate) : null;
    if (decimal === null || Number(rate) > MAX_TAX_RATE) {
      throw new DomainException('InvalidInput', `The rate must be a percentage from 0 to ${MAX_TAX_RATE} with at most 6 decimals, not ${rate}`, { field: 'rate' });
    }
    const scope = await this.existingTenant(tenantId);
    const text = formatDecimal(decimal);
    return scope.repository(TaxRate).save({ rate: text, name: name ?? `${text} %` });
  }

  private async existingTenant(tenantId: string): Promise<TenantScope> {
    const scope = isUuid(tenantId) ? this.data.forTenant(tenantId) : null;
    if (!scope || !(await scope.tenantExists())) throw new DomainException('TenantNotFound', `Tenant ${tenantId} not found`);
    return scope;
  }
}
