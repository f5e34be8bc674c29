import { Errors, type ErrorDefinition, type ErrorRef } from '../catalog/errors.js';

export interface ProblemFieldError {
  path: string;
  code: string;
  message: string;
}

/**
 * Optional members of a problem body (spec section 7). Each is declared in ProblemDto too, so
 * that a client generated from the document types every body it can receive; only `checks`
 * is not, as /readyz is not part of the API's document.
 */
export interface ProblemExtras {
  code?: string;
  field?: string;
  errors?: ProblemFieldError[];
  currency?: string;
  missing_scope?: string;
  missing_scopes?: string[];
  unknown_event_types?: string[];
  limit?: number;
  supported_versions?: string[];
  endpoint_status?: string;
  delivery_status?: string;
  checks?: Record<string, string>;
}

/**
 * The one exception type the application throws for an expected failure. It names an entry of
 * the error catalogue; the problem filter renders it. One style everywhere: thrown where the
 * failure is found, `new DomainException('<catalogue name>', detail, extras)`; a problem built
 * in several places gets a function that returns it (`invoiceNotFound(id)`, `missingScope(…)`).
 * A subclass only where a caller catches it and reads a member of its own
 * (WebhookUrlRefusedException's `stage`).
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
