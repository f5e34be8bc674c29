import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength, ValidateIf } from 'class-validator';
import { Checks, ValidatedBody } from '../../../platform/validation/validated-body.js';
import { present, WEBHOOK_BODY_RULES } from '../../dto/webhook-body-rules.js';

/** The optional body of POST /v1/webhook_endpoints/{id}/test_events. */
@ValidatedBody({ ...WEBHOOK_BODY_RULES, optional: true })
export class TestEventDto {
  @ApiPropertyOptional({
    description: 'An event type the endpoint is subscribed to (any type for `["*"]`). Default: its first subscribed type, `fin.invoice.created` for `["*"]`.',
    example: 'fin.invoice.paid',
    maxLength: 200,
  })
  @ValidateIf(present)
  @Checks(IsString(), MaxLength(200))
  event_type?: string;
}
