import { resourceErrors } from '../platform/catalog/errors.js';
import { DomainException, type ProblemFieldError } from '../platform/errors/domain.exception.js';
import { invoicesResource } from './invoices.resource.js';

/** A member-level problem with an invoice request: `path` names the member (`lines[0].qty`). */
export type FieldError = ProblemFieldError;

export class InvoiceInvalidBodyException extends DomainException {
  constructor(what: string) {
    super('InvoiceInvalidBody', `The request body must be a JSON object, not ${what}.`);
  }
}

/** `customer_id`, `currency` or `lines` missing: `field` names the first, `errors` all of them. */
export class InvoiceRequiredException extends DomainException {
  constructor(missing: string[]) {
    super('InvoiceRequired', `${missing[0]} is required.`, {
      field: missing[0],
      errors: missing.map((path) => ({ path, code: 'required', message: `${path} is required` })),
    });
  }
}

/** One invoice line is unusable: `field` names the line or its member, `code` says why. */
export class InvoiceLineInvalidException extends DomainException {
  constructor(error: FieldError) {
    super('InvoiceLineInvalid', error.message, { field: error.path, code: error.code, errors: [error] });
  }
}

export class InvoiceValidationFailedException extends DomainException {
  constructor(errors: FieldError[]) {
    super('InvoiceValidationFailed', errors.map((error) => error.message).join('; '), { errors });
  }
}

export class CurrencyNotEnabledException extends DomainException {
  constructor(currency: string) {
    super('CurrencyNotEnabled', `The currency ${currency} is not enabled in this company's Finance settings.`, { currency, field: 'currency' });
  }
}

export class InvalidReferenceException extends DomainException {
  constructor(field: string, what: string, id: string) {
    super('InvalidReference', `No ${what} with id ${id} exists in this company.`, { field, code: 'not_found' });
  }
}

export class InvoiceNotFoundException extends DomainException {
  constructor(id: string) {
    super(resourceErrors(invoicesResource.name).notFound, `No invoice with id ${id}.`);
  }
}
