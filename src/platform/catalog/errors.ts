/**
 * Each problem `type` slug with its title and what it covers: the page its URL answers
 * (`GET /errors/{type}`, with the detail keys below that carry it).
 */
export const PROBLEM_TYPES = {
  validation: {
    title: 'Validation failed',
    description:
      'The request was understood, but a body member, query parameter, path id, cursor or header value is not acceptable, or a business rule refused it. `field` names the member at fault; `errors` lists each fault with its `path` and `code`.',
  },
  'not-found': { title: 'Not found', description: 'No such record for this company and key, no such route, or the company is no longer active.' },
  forbidden: { title: 'Forbidden', description: 'The credential is valid but may not do this: a missing scope (`missing_scope`, `missing_scopes`) or a permission not granted.' },
  'idempotency-conflict': {
    title: 'Idempotency conflict',
    description: 'The `Idempotency-Key` was used before with a different body, its first answer cannot be replayed, or that request is still running.',
  },
  conflict: { title: 'Conflict', description: 'The record is not in a state that allows this operation.' },
  unauthorized: { title: 'Unauthorized', description: 'The credential is missing, malformed, unknown, revoked or expired.' },
  'unsupported-version': { title: 'Unsupported API version', description: 'The `OH-Version` header names a version this server does not serve; `supported_versions` lists those it does.' },
  'version-sunset': { title: 'API version sunset', description: 'The `OH-Version` header names a version that is no longer served.' },
  'rate-limited': { title: 'Rate limited', description: 'Too many requests from this credential, or failed authentications from this client address: wait the `Retry-After` seconds, then repeat.' },
  'quota-exceeded': { title: 'Quota exceeded', description: 'A count the company may hold is reached (`limit` gives it). No `Retry-After`: free a place first.' },
  'payload-too-large': { title: 'Payload too large', description: 'The request body is larger than the API accepts.' },
  'method-not-allowed': { title: 'Method not allowed', description: 'The path exists, but not with this method; the `Allow` header lists those it has.' },
  'bad-request': {
    title: 'Bad request',
    description: 'The HTTP request itself could not be read: malformed, too slow, headers too large, a body in an unsupported encoding, or an `Expect` the server cannot meet.',
  },
  internal: {
    title: 'Server error',
    description: 'The service could not answer. A 503 is transient: repeat after `Retry-After`. A 500 never carries internal details: quote the `x-trace-id` header when reporting it.',
  },
} as const satisfies Record<string, { title: string; description: string }>;

export type ProblemType = keyof typeof PROBLEM_TYPES;

export interface ErrorDefinition {
  readonly detailKey: string;
  readonly status: number;
  readonly type: ProblemType;
  readonly title: string;
  /** Default `code` member, where the spec gives one. */
  readonly code?: string;
}

const def = (detailKey: string, status: number, type: ProblemType, title: string, code?: string): ErrorDefinition =>
  code === undefined ? { detailKey, status, type, title } : { detailKey, status, type, title, code };

/**
 * Every error the API can answer with: its `detail_key`, HTTP status, problem `type` slug and
 * title (spec section 7). Domain exceptions name an entry of this catalogue; the problem filter
 * turns it into application/problem+json. Nothing else in the code spells a detail key.
 */
export const Errors = {
  // Platform: authentication, tenancy, scopes
  Unauthenticated: def('errors.integrations.unauthenticated', 401, 'unauthorized', 'Missing or invalid API key'),
  MissingScope: def('errors.integrations.missing_scope', 403, 'forbidden', 'The API key lacks a required scope'),
  TenantNotFound: def('errors.common.tenant_not_found', 404, 'not-found', 'Company not found'),

  // Agent-tool server (spec 5.9)
  McpUnauthenticated: def('errors.mcp.unauthenticated', 401, 'unauthorized', 'Missing or invalid agent-tool token or tenant'),
  McpOriginNotAllowed: def('errors.mcp.origin_not_allowed', 403, 'forbidden', 'Origin not allowed'),
  McpInvalidRequest: def('errors.mcp.invalid_request', 422, 'validation', 'Invalid tool request'),

  // Platform: request shape
  InvalidInput: def('errors.common.validation.invalid_input', 422, 'validation', 'Invalid input'),
  InvalidReference: def('errors.common.validation.invalid_reference', 422, 'validation', 'Referenced record does not exist'),
  MalformedJson: def('errors.common.validation.malformed_json', 422, 'validation', 'Request body is not valid JSON'),
  PayloadTooLarge: def('errors.common.payload_too_large', 413, 'payload-too-large', 'Request body too large'),
  RouteNotFound: def('errors.common.route_not_found', 404, 'not-found', 'No such route'),
  MethodNotAllowed: def('errors.common.method_not_allowed', 405, 'method-not-allowed', 'Method not allowed'),
  UnsupportedMediaType: def('errors.common.unsupported_media_type', 415, 'bad-request', 'Unsupported media type'),
  HeadersTooLarge: def('errors.common.request_headers_too_large', 431, 'bad-request', 'Request headers too large'),
  MalformedRequest: def('errors.common.malformed_request', 400, 'bad-request', 'Malformed HTTP request'),
  ExpectationFailed: def('errors.common.expectation_failed', 417, 'bad-request', 'Expectation not supported'),
  TransferCodingNotImplemented: def('errors.common.transfer_coding_not_implemented', 501, 'bad-request', 'Transfer coding not implemented'),
  RequestTimeout: def('errors.common.request_timeout', 408, 'bad-request', 'Request timeout'),
  Internal: def('errors.common.internal', 500, 'internal', 'Internal server error'),
  ServiceUnavailable: def('errors.common.service_unavailable', 503, 'internal', 'Service temporarily unavailable'),

  // Administration (the admin CLI standing in for the applications)
  SlugTaken: def('errors.admin.slug_taken', 409, 'conflict', 'The company slug is taken'),
  UserNotFound: def('errors.admin.user_not_found', 404, 'not-found', 'User not found'),
  UserEmailTaken: def('errors.admin.user_email_taken', 409, 'conflict', 'The company already has a person with this e-mail address'),
  ApiKeyNotFound: def('errors.admin.api_key_not_found', 404, 'not-found', 'API key not found'),
  McpTokenNotFound: def('errors.admin.mcp_token_not_found', 404, 'not-found', 'Agent-tool token not found'),

  // Platform: versioning
  UnsupportedVersion: def('errors.platform.versioning.unsupported_version', 400, 'unsupported-version', 'Unsupported API version'),
  VersionSunset: def('errors.platform.versioning.version_sunset', 410, 'version-sunset', 'API version has been sunset'),

  // Platform: rate limits
  RateLimited: def('errors.platform.rate_limit.exceeded', 429, 'rate-limited', 'Too many requests'),

  // Platform: idempotency
  IdempotencyBodyMismatch: def(
    'errors.idempotency.body_mismatch',
    409,
    'idempotency-conflict',
    'Idempotency-Key was reused with a different request body or query',
  ),
  IdempotencyReplayUnavailable: def(
    'errors.platform.idempotency.replay_unavailable',
    409,
    'idempotency-conflict',
    'The first response cannot be replayed',
  ),
  IdempotencyInProgress: def(
    'errors.platform.idempotency.in_progress',
    409,
    'idempotency-conflict',
    'A request with this Idempotency-Key is still being processed',
  ),
  IdempotencyKeyInvalid: def(
    'errors.platform.idempotency.invalid_key',
    422,
    'validation',
    'Idempotency-Key must be 1 to 255 printable characters',
  ),

  // Pagination on the deliveries list (the readable resources have their own keys below)
  InvalidCursor: def('errors.integrations.invalid_cursor', 422, 'validation', 'Unreadable cursor'),

  // Invoices (spec section 4 and 7)
  InvoiceInvalidBody: def('errors.integrations.invoices.invalid_body', 422, 'validation', 'Request body must be a JSON object'),
  InvoiceRequired: def('errors.integrations.invoices.required', 422, 'validation', 'A required member is missing', 'required'),
  InvoiceLineInvalid: def('errors.integrations.invoices.line_invalid', 422, 'validation', 'An invoice line is invalid'),
  InvoiceValidationFailed: def('errors.integrations.invoices.validation_failed', 422, 'validation', 'Validation failed'),
  InvoiceCreateFailed: def('errors.integrations.invoices.create_failed', 422, 'validation', 'The invoice could not be created'),
  InvoiceNoWritableFields: def('errors.integrations.invoices.no_writable_fields', 422, 'validation', 'Nothing to change'),
  InvoiceUpdateFailed: def('errors.integrations.invoices.update_failed', 422, 'validation', 'Only a draft invoice can be changed'),
  InvoiceVoidFailed: def('errors.integrations.invoices.void_failed', 422, 'validation', 'The invoice could not be voided'),
  InvalidInvoiceStatusForVoid: def(
    'errors.finance.validation.invalid_invoice_status_for_void',
    422,
    'validation',
    'Only an issued, partial or overdue invoice can be voided',
  ),
  CurrencyNotEnabled: def('errors.finance.validation.currency_not_enabled', 422, 'validation', 'Currency not enabled for this company'),

  // Webhooks (spec sections 4, 6, 7)
  WebhookUrlNotPubliclyRoutable: def(
    'errors.integrations.webhooks.url_not_publicly_routable',
    422,
    'validation',
    'Webhook URL must be https:// with a host name that resolves to a public address',
    'url_not_publicly_routable',
  ),
  WebhookUnknownEventType: def(
    'errors.integrations.webhooks.unknown_event_type',
    422,
    'validation',
    'Unknown event type',
    'unknown_event_type',
  ),
  WebhookUnknownField: def('errors.integrations.webhooks.unknown_field', 422, 'validation', 'Unknown member', 'unknown_field'),
  WebhookValidationFailed: def('errors.integrations.webhooks.validation_failed', 422, 'validation', 'Validation failed'),
  WebhookInvalidSince: def('errors.integrations.webhooks.invalid_since', 422, 'validation', 'since must be an RFC 3339 date-time', 'invalid_since'),
  WebhookEndpointNotFound: def('errors.integrations.webhooks.not_found', 404, 'not-found', 'Webhook endpoint not found', 'not_found'),
  WebhookDeliveryNotFound: def('errors.integrations.webhooks.delivery_not_found', 404, 'not-found', 'Delivery not found', 'not_found'),
  WebhookOwnerKeyInactive: def('errors.integrations.webhooks.owner_key_inactive', 409, 'conflict', 'The owning API key is revoked or expired', 'owner_key_inactive'),
  WebhookEndpointNotActive: def('errors.integrations.webhooks.endpoint_not_active', 409, 'conflict', 'The endpoint is not active', 'endpoint_not_active'),
  WebhookQuotaExceeded: def('errors.integrations.webhooks.quota_exceeded', 429, 'quota-exceeded', 'Webhook endpoint quota exceeded', 'quota_exceeded'),
  WebhookPiiNotGranted: def('errors.integrations.webhooks.pii_not_granted', 403, 'forbidden', 'Endpoint is not enabled for personal data', 'pii_not_granted'),
  WebhookDeliveryPending: def('errors.integrations.webhooks.delivery_pending', 409, 'conflict', 'The delivery is still pending; only a finished delivery can be replayed', 'delivery_pending'),
  WebhookDeliveryNotPending: def('errors.integrations.webhooks.delivery_not_pending', 409, 'conflict', 'The delivery has finished; replay it instead', 'delivery_not_pending'),
  WebhookEventTypeNotSubscribed: def(
    'errors.integrations.webhooks.event_type_not_subscribed',
    422,
    'validation',
    'The endpoint is not subscribed to this event type',
    'event_type_not_subscribed',
  ),

  // The events feed (GET /v1/events)
  EventNotFound: def('errors.integrations.events.not_found', 404, 'not-found', 'Event not found', 'not_found'),
  EventsInvalidCursor: def('errors.integrations.events.invalid_cursor', 422, 'validation', 'Unreadable cursor'),
} as const;

export type ErrorName = keyof typeof Errors;

/** An entry of the catalogue by name, or a readable resource's own entry (`resourceErrors`). */
export type ErrorRef = ErrorName | ErrorDefinition;

/** A readable resource's own key as the documents quote it; the first group is the resource's name. */
export const RESOURCE_KEY = /`errors\.integrations\.(\w+)\.(?:invalid_cursor|not_found)`/g;

/**
 * The list cursor and retrieve not-found errors of the readable resource `name`
 * (`errors.integrations.<name>.invalid_cursor` / `.not_found`): derived from the resource
 * registry, so a new resource brings its keys with it.
 */
export function resourceErrors(name: string): { invalidCursor: ErrorDefinition; notFound: ErrorDefinition } {
  const label = name.replace(/_/g, ' ');
  return {
    invalidCursor: def(`errors.integrations.${name}.invalid_cursor`, 422, 'validation', 'Unreadable cursor'),
    notFound: def(`errors.integrations.${name}.not_found`, 404, 'not-found', `${label[0].toUpperCase()}${label.slice(1, -1)} not found`, 'not_found'),
  };
}
