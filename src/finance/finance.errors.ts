import { resourceErrors } from '../platform/catalog/errors.js';
import { DomainException } from '../platform/errors/domain.exception.js';
import { invoicesResource } from './invoices.resource.js';

/** The problems finance builds in more than one place. */

export function invoiceNotFound(id: string): DomainException {
  return new DomainException(resourceErrors(invoicesResource.name).notFound, `No invoice with id ${id}.`);
}

/** An id in the body that names no row of this company: `field` is its member (`lines[0].product_id`). */
export function invalidReference(field: string, what: string, id: string): DomainException {
  return new DomainException('InvalidReference', `No ${what} with id ${id} exists in this company.`, { field, code: 'not_found' });
}
