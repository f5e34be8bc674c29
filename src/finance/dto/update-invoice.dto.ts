import { ApiPropertyOptional } from '@nestjs/swagger';
import { ValidatedBody } from '../../platform/validation/validated-body.js';
import { MAX_NOTES_LENGTH } from '../invoice-limits.js';
import { OptionalDate, OptionalText, PatchCurrency, PatchUuid } from './invoice-checks.js';

/**
 * The writable fields of a draft: `customer_id`, `currency`, `issue_date`, `due_date`, `notes`.
 * Anything else, `lines` included, is refused with `validation_failed` (code `unknown_field`).
 */
@ValidatedBody({ invalidBody: 'InvoiceInvalidBody', problems: [{ error: 'InvoiceValidationFailed' }] })
export class UpdateInvoiceDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'A customer of this company; not null.' })
  @PatchUuid()
  customer_id?: string;

  @ApiPropertyOptional({ pattern: '^[A-Z]{3}$', example: 'EUR', description: 'Enabled in the company’s Finance settings; not null.' })
  @PatchCurrency()
  currency?: string;

  @ApiPropertyOptional({ format: 'date', description: 'Not null. The changed invoice must keep due_date ≥ issue_date.' })
  @OptionalDate()
  issue_date?: string;

  @ApiPropertyOptional({ format: 'date', description: 'Not null. The changed invoice must keep due_date ≥ issue_date.' })
  @OptionalDate()
  due_date?: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: MAX_NOTES_LENGTH, example: 'Payable within 14 days by bank transfer.', description: 'null removes the notes.' })
  @OptionalText(MAX_NOTES_LENGTH, '$path must be a string or null')
  notes?: string | null;
}
