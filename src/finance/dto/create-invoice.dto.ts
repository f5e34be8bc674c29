import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsString, Matches } from 'class-validator';
import { type BodyRules, Checks, MaxCodePoints, NestedList, ValidatedBody } from '../../platform/validation/validated-body.js';
import { MAX_DESCRIPTION_LENGTH, MAX_LINES, MAX_NOTES_LENGTH } from '../invoice-limits.js';
import { MAX_MINOR, MAX_QTY, MAX_TAX_RATE } from '../invoice-totals.js';
import {
  CurrencyCode,
  DueNotBeforeIssue,
  LINE_INVALID,
  LineAmount,
  LineNetWithinLimit,
  LineTaxRate,
  OptionalDate,
  OptionalText,
  OptionalUuid,
  REQUIRED,
  RequiredMember,
  Uuid,
} from './invoice-checks.js';

/**
 * The create body: `required` (customer_id, currency, lines; `field` names the first, `errors`
 * all) → `line_invalid` (the first faulty line's first fault, with `field` and `code`) →
 * `validation_failed` (every other fault in `errors`).
 */
const CREATE_RULES: BodyRules = {
  invalidBody: 'InvoiceInvalidBody',
  problems: [
    { error: REQUIRED, field: true, detail: (errors) => `${errors[0].path} is required.` },
    { error: LINE_INVALID, firstOnly: true, field: true, code: true, detail: 'first' },
    { error: 'InvoiceValidationFailed' },
  ],
};

@ValidatedBody(CREATE_RULES)
export class CreateInvoiceLineDto {
  @ApiProperty({ minLength: 1, maxLength: MAX_DESCRIPTION_LENGTH, example: 'Consulting, May 2026', description: 'Required, not blank.' })
  @Checks(
    IsDefined({ context: { code: 'required', message: '$path is required and must not be blank' } }),
    IsString({ context: { message: '$path must be a string' } }),
    Matches(/\S/, { context: { code: 'required', message: '$path is required and must not be blank' } }),
    MaxCodePoints(MAX_DESCRIPTION_LENGTH, { context: { message: `$path must be at most ${MAX_DESCRIPTION_LENGTH} characters` } }),
  )
  description: string;

  @ApiProperty({
    type: 'number',
    minimum: 0,
    maximum: MAX_QTY,
    example: 1.5,
    description: 'Required. Taken as the decimal it is written as (1.005 is exactly 1.005), for up to 15 significant digits; a longer one is read as the nearest double.',
  })
  @Checks(LineAmount(MAX_QTY, false), LineNetWithinLimit())
  qty: number;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_MINOR, example: 12000, description: 'Required; whole minor units.' })
  @LineAmount(MAX_MINOR, true)
  unit_price_minor: number;

  @ApiPropertyOptional({
    type: 'number',
    nullable: true,
    minimum: 0,
    maximum: MAX_TAX_RATE,
    example: 19,
    description:
      'Percentage (19 means 19 %). Required unless `tax_rate_id` is given; then it may be left out (or null) and the rate record ' +
      'supplies it. When both are given they must be equal, otherwise the line is refused with `line_invalid` (code `tax_rate_conflict`).',
  })
  @LineTaxRate(MAX_TAX_RATE)
  tax_rate?: number;

  @ApiPropertyOptional({ type: 'string', format: 'uuid', nullable: true, description: 'A product of this company; null or absent: none.' })
  @OptionalUuid()
  product_id?: string;

  @ApiPropertyOptional({ type: 'string', format: 'uuid', nullable: true, description: 'A tax rate of this company; see `tax_rate`. Null or absent: none.' })
  @OptionalUuid()
  tax_rate_id?: string;
}

@ValidatedBody(CREATE_RULES)
export class CreateInvoiceDto {
  @ApiProperty({ format: 'uuid', description: 'A customer of this company.' })
  @Checks(RequiredMember(), Uuid())
  customer_id: string;

  @ApiProperty({ pattern: '^[A-Z]{3}$', example: 'EUR', description: 'Must be enabled in the company’s Finance settings.' })
  @Checks(RequiredMember(), CurrencyCode())
  currency: string;

  @ApiProperty({
    type: [CreateInvoiceLineDto],
    minItems: 1,
    maxItems: MAX_LINES,
    description: `At least one line (an empty array is refused with \`validation_failed\`, code \`min_items\`, since lines cannot be added later); at most ${MAX_LINES}.`,
  })
  @Checks(
    RequiredMember(),
    IsArray({ context: { message: '$path must be an array' } }),
    ArrayMinSize(1, { context: { message: '$path must hold at least one line' } }),
    ArrayMaxSize(MAX_LINES, { context: { message: `$path must hold at most ${MAX_LINES} lines` } }),
    NestedList(() => CreateInvoiceLineDto, { problem: LINE_INVALID, code: 'not_an_object', message: '$path must be an object, not $kind' }),
  )
  lines: CreateInvoiceLineDto[];

  @ApiPropertyOptional({ format: 'date', description: 'Default: today in company time (UTC). Between 1900-01-01 and 2999-12-31.' })
  @OptionalDate()
  issue_date?: string;

  @ApiPropertyOptional({ format: 'date', description: 'Default: issue_date + 14 days. Must not be before issue_date.' })
  @Checks(OptionalDate(), DueNotBeforeIssue())
  due_date?: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: MAX_NOTES_LENGTH, example: 'Payable within 14 days by bank transfer.', description: 'At most 2,000 characters (Unicode code points).' })
  @OptionalText(MAX_NOTES_LENGTH, '$path must be a string or null')
  notes?: string | null;
}
