import { ApiProperty } from '@nestjs/swagger';

/** An amount in minor units; the schema caps every amount at 2^53 − 1. */
export const MINOR = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;

/** Currency and amounts as every finance document shows them. */
export abstract class FinanceDocumentDto {
  @ApiProperty({ pattern: '^[A-Z]{3}$', example: 'EUR' })
  currency: string;

  @ApiProperty(MINOR)
  subtotal_minor: number;

  @ApiProperty(MINOR)
  tax_minor: number;

  @ApiProperty({ ...MINOR, description: 'subtotal_minor + tax_minor.' })
  total_minor: number;
}

/** A document settled by payments; each kind documents what counts towards its `paid_minor`. */
export abstract class PayableDocumentDto extends FinanceDocumentDto {
  abstract paid_minor: number;

  @ApiProperty({ ...MINOR, description: 'total_minor − paid_minor; 0 when void.' })
  balance_minor: number;
}
