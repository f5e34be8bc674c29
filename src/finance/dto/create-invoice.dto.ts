import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_DESCRIPTION_LENGTH, MAX_LINES, MAX_NOTES_LENGTH } from '../invoice-input.js';
import { MAX_MINOR, MAX_QTY, MAX_TAX_RATE } from '../invoice-totals.js';

/** Documentation of the create body; the body itself is checked by `parseCreateInvoice`. */
export class CreateInvoiceLineDto {
  @ApiProperty({ minLength: 1, maxLength: MAX_DESCRIPTION_LENGTH, description: 'Required, not blank.' })
  description: string;

  @ApiProperty({
    type: 'number',
    minimum: 0,
    maximum: MAX_QTY,
    example: 1.5,
    description: 'Required. Taken as the decimal it is written as (1.005 is exactly 1.005).',
  })
  qty: number;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_MINOR, example: 12000, description: 'Required; whole minor units.' })
  unit_price_minor: number;

  @ApiPropertyOptional({
    type: 'number',
    minimum: 0,
    maximum: MAX_TAX_RATE,
    example: 19,
    description:
      'Percentage (19 means 19 %). Required unless `tax_rate_id` is given; then it may be left out and the rate record ' +
      'supplies it. When both are given they must be equal, otherwise the line is refused with `line_invalid` (code `tax_rate_conflict`).',
  })
  tax_rate?: number;

  @ApiPropertyOptional({ format: 'uuid', description: 'A product of this company.' })
  product_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'A tax rate of this company; see `tax_rate`.' })
  tax_rate_id?: string;
}

export class CreateInvoiceDto {
  @ApiProperty({ format: 'uuid', description: 'A customer of this company.' })
  customer_id: string;

  @ApiProperty({ pattern: '^[A-Z]{3}$', example: 'EUR', description: 'Must be enabled in the company’s Finance settings.' })
  currency: string;

  @ApiProperty({
    type: [CreateInvoiceLineDto],
    minItems: 1,
    maxItems: MAX_LINES,
    description: `At least one line (an empty array is refused with \`validation_failed\`, code \`min_items\`, since lines cannot be added later); at most ${MAX_LINES}.`,
  })
  lines: CreateInvoiceLineDto[];

  @ApiPropertyOptional({ format: 'date', description: 'Default: today in company time (UTC). Between 1900-01-01 and 2999-12-31.' })
  issue_date?: string;

  @ApiPropertyOptional({ format: 'date', description: 'Default: issue_date + 14 days. Must not be before issue_date.' })
  due_date?: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: MAX_NOTES_LENGTH, description: 'At most 2,000 characters (Unicode code points).' })
  notes?: string | null;
}
