import { Errors, type ErrorDefinition, type ErrorRef } from '../catalog/errors.js';

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
  /** The catalogue entry's name, or the detail key of a resource's own entry. */
  readonly errorName: string;

  constructor(
    error: ErrorRef,
    detail?: string,
    readonly extras: ProblemExtras = {},
    /** Response headers that belong to this error (e.g. Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    const definition = typeof error === 'string' ? Errors[error] : error;
    super(detail ?? definition.title);
    this.definition = definition;
    this.errorName = typeof error === 'string' ? error : error.detailKey;
    this.name = new.target.name;
  }
}
