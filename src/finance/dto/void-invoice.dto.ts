import { ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_VOID_REASON_LENGTH } from '../invoice-input.js';

/** Optional body of a void. Any other member is refused with `validation_failed` (`unknown_field`). */
export class VoidInvoiceDto {
  @ApiPropertyOptional({
    type: 'string', nullable: true,
    maxLength: MAX_VOID_REASON_LENGTH,
    example: 'Issued to the wrong customer',
    description: 'Kept in the audit trail and on the reversing credit note.',
  })
  reason?: string | null;
}
