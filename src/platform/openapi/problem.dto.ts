import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ProblemFieldErrorDto {
  @ApiProperty({ example: 'lines[0].colour' })
  path: string;

  @ApiProperty({ example: 'unknown_field' })
  code: string;

  @ApiProperty({ example: 'lines[0].colour is not a known member' })
  message: string;
}

/** RFC 9457 problem details, as every error of this API is answered (spec section 7). */
export class ProblemDto {
  @ApiProperty({ format: 'uri', example: 'https://api.example.com/errors/validation' })
  type: string;

  @ApiProperty({ example: 'Validation failed' })
  title: string;

  @ApiProperty({ example: 422, description: 'Equal to the HTTP status.' })
  status: number;

  @ApiProperty({ example: 'due_date is before issue_date' })
  detail: string;

  @ApiProperty({ example: 'errors.integrations.invoices.validation_failed', description: 'Stable machine-readable key.' })
  detail_key: string;

  @ApiPropertyOptional({ example: 'unknown_field' })
  code?: string;

  @ApiPropertyOptional({ description: 'The member at fault.', example: 'customer_id' })
  field?: string;

  @ApiPropertyOptional({ type: [ProblemFieldErrorDto] })
  errors?: ProblemFieldErrorDto[];

  @ApiPropertyOptional({ description: 'With currency_not_enabled.', example: 'USD' })
  currency?: string;

  @ApiPropertyOptional({ description: 'On 403: the scope required.', example: 'int:fin.invoices:read' })
  missing_scope?: string;

  @ApiPropertyOptional({ description: 'On 403 when several scopes are missing.', type: [String] })
  missing_scopes?: string[];
}
