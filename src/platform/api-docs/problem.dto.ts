import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Scope } from '../catalog/scopes.js';
import { LISTED_FAULTS } from '../validation/validated-body.js';

export class ProblemFieldErrorDto {
  @ApiProperty({ example: 'lines[0].colour' })
  path: string;

  @ApiProperty({ example: 'unknown_field' })
  code: string;

  @ApiProperty({ example: 'lines[0].colour is not a known member' })
  message: string;
}

/**
 * Where an example's problem `type` URL starts, as the spec writes it: the OpenAPI document puts
 * the configured ERRORS_BASE_URL in its place (buildOpenApiDocument), as real answers have it.
 */
export const ERRORS_URL = '{errors_url}';

/** RFC 9457 problem details, as every error of this API is answered (spec section 7). */
export class ProblemDto {
  @ApiProperty({ format: 'uri', example: `${ERRORS_URL}/validation`, description: 'The problem type; under the default ERRORS_BASE_URL, GET it for the type and its detail keys.' })
  type: string;

  @ApiProperty({ example: 'Validation failed' })
  title: string;

  @ApiProperty({ type: 'integer', minimum: 400, maximum: 599, example: 422, description: 'Equal to the HTTP status.' })
  status: number;

  @ApiProperty({ example: 'due_date is before issue_date' })
  detail: string;

  @ApiProperty({ example: 'errors.integrations.invoices.validation_failed', description: 'Stable machine-readable key.' })
  detail_key: string;

  @ApiPropertyOptional({ example: 'unknown_field' })
  code?: string;

  @ApiPropertyOptional({ description: 'The member at fault.', example: 'customer_id' })
  field?: string;

  @ApiPropertyOptional({
    type: [ProblemFieldErrorDto],
    maxItems: LISTED_FAULTS,
    description: `The body's faults of this kind, at most ${LISTED_FAULTS}: the \`detail\` of a longer list ends \`; and N more\`.`,
  })
  errors?: ProblemFieldErrorDto[];

  @ApiPropertyOptional({ description: 'With currency_not_enabled.', example: 'USD' })
  currency?: string;

  @ApiPropertyOptional({ description: 'On 403: the scope required.', example: Scope.FinInvoicesRead })
  missing_scope?: string;

  @ApiPropertyOptional({ description: 'On 403 when several scopes are missing.', type: [String], example: [Scope.FinInvoicesRead, Scope.HrEmployeesRead] })
  missing_scopes?: string[];

  @ApiPropertyOptional({ description: 'With unknown_event_type: exactly the event types not in the catalogue.', type: [String], example: ['fin.invoice.deleted'] })
  unknown_event_types?: string[];

  @ApiPropertyOptional({ type: 'integer', description: 'With quota_exceeded: the quota.', example: 5 })
  limit?: number;

  @ApiPropertyOptional({ description: 'On 400 `unsupported_version`: the versions this server serves.', type: [String], example: ['2026-05-16'] })
  supported_versions?: string[];

  @ApiPropertyOptional({ description: 'On 409 `endpoint_not_active`: the endpoint\'s status.', example: 'paused' })
  endpoint_status?: string;

  @ApiPropertyOptional({ description: 'On 409 `delivery_not_pending`: the delivery\'s status.', example: 'delivered' })
  delivery_status?: string;
}
