import { ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_NOTES_LENGTH } from '../invoice-input.js';

/**
 * The writable fields of a draft: `customer_id`, `currency`, `issue_date`, `due_date`, `notes`.
 * Anything else, `lines` included, is refused with `validation_failed` (code `unknown_field`).
 */
export class UpdateInvoiceDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'A customer of this company; not null.' })
  customer_id?: string;

  @ApiPropertyOptional({ pattern: '^[A-Z]{3}$', description: 'Enabled in the company’s Finance settings; not null.' })
  currency?: string;

  @ApiPropertyOptional({ format: 'date', description: 'Not null. The changed invoice must keep due_date ≥ issue_date.' })
  issue_date?: string;

  @ApiPropertyOptional({ format: 'date', description: 'Not null. The changed invoice must keep due_date ≥ issue_date.' })
  due_date?: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: MAX_NOTES_LENGTH, description: 'null removes the notes.' })
  notes?: string | null;
}
