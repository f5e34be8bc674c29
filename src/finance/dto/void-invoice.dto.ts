import { ApiPropertyOptional } from '@nestjs/swagger';
import { ValidatedBody } from '../../platform/validation/validated-body.js';
import { MAX_VOID_REASON_LENGTH } from '../invoice-limits.js';
import { OptionalText } from './invoice-checks.js';

/** Optional body of a void. Any other member is refused with `validation_failed` (`unknown_field`). */
@ValidatedBody({ invalidBody: 'InvoiceInvalidBody', problems: [{ error: 'InvoiceValidationFailed' }], optional: true })
export class VoidInvoiceDto {
  @ApiPropertyOptional({
    type: 'string', nullable: true,
    maxLength: MAX_VOID_REASON_LENGTH,
    example: 'Issued to the wrong customer',
    description: 'Kept in the audit trail and on the reversing credit note.',
  })
  @OptionalText(MAX_VOID_REASON_LENGTH, '$path must be a string')
  reason?: string | null;
}
