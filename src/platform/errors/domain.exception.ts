import { Errors, type ErrorDefinition, type ErrorName } from '../catalog/errors.js';

export interface ProblemFieldError {
  path: string;
  code: string;
  message: string;
}

/** Optional members of a problem body (spec section 7). */
export interface ProblemExtras {
  code?: string;
  field?: string;
  errors?: ProblemFieldError[];
  currency?: string;
  missing_scope?: string;
  missing_scopes?: string[];
  unknown_event_types?: string[];
  [member: string]: unknown;
}

/**
 * The one exception type the application throws for an expected failure. It names an entry of
 * the error catalogue; the problem filter renders it. Modules subclass it for readability
 * (`new InvoiceNotFoundException()`), never to invent keys outside the catalogue.
 */
export class DomainException extends Error {
  readonly definition: ErrorDefinition;

  constructor(
    readonly errorName: ErrorName,
    detail?: string,
    readonly extras: ProblemExtras = {},
    /** Response headers that belong to this error (e.g. Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? Errors[errorName].title);
    this.definition = Errors[errorName];
    this.name = new.target.name;
  }
}
