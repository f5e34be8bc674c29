import { ApiProperty } from '@nestjs/swagger';
import { PAYMENT_DIRECTIONS, PAYMENT_STATUSES } from '../payment.entity.js';

export class PaymentDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  tenant_id: string;

  @ApiProperty({ type: 'string', nullable: true, format: 'uuid', description: 'Set for a payment received against an invoice.' })
  invoice_id: string | null;

  @ApiProperty({ type: 'string', nullable: true, format: 'uuid', description: 'Set for a payment made against a bill.' })
  bill_id: string | null;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER })
  amount_minor: number;

  @ApiProperty({ pattern: '^[A-Z]{3}$', example: 'EUR' })
  currency: string;

  @ApiProperty({ enum: PAYMENT_DIRECTIONS, description: '`in`: received from a customer; `out`: paid to a supplier.' })
  direction: string;

  @ApiProperty({
    enum: PAYMENT_STATUSES,
    description: '`received`: the money arrived; `refunded`: it was paid back (no longer counts towards the invoice); `failed`: it never arrived (see failure_reason).',
  })
  status: string;

  @ApiProperty({ type: 'string', format: 'date-time', description: 'When the money arrived, or the attempt was made for a failed payment.' })
  received_at: string;

  @ApiProperty({ type: 'string', nullable: true, example: 'insufficient_funds', description: 'Set only when status is `failed`.' })
  failure_reason: string | null;

  @ApiProperty({ type: 'string', format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: 'string', format: 'date-time' })
  updated_at: string;
}
