import { ApiProperty } from '@nestjs/swagger';
import { PURCHASE_ORDER_STATUSES } from '../purchase-order.entity.js';

const MINOR = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;

/** An order the company placed with a supplier. */
export class PurchaseOrderDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'PO-2026-000007', description: '`PO-<year of order_date>-<6-digit number>`, unique per company.' })
  number: string;

  @ApiProperty({ example: 'Schmidt Logistik AG' })
  supplier_name: string;

  @ApiProperty({
    enum: PURCHASE_ORDER_STATUSES,
    description: '`draft`, `sent` (to the supplier), `partially_received`, `received`, `closed` (billed and done), `cancelled`.',
  })
  status: string;

  @ApiProperty({ pattern: '^[A-Z]{3}$', example: 'EUR' })
  currency: string;

  @ApiProperty(MINOR)
  subtotal_minor: number;

  @ApiProperty(MINOR)
  tax_minor: number;

  @ApiProperty({ ...MINOR, description: 'subtotal_minor + tax_minor.' })
  total_minor: number;

  @ApiProperty({ type: 'string', format: 'date' })
  order_date: string;

  @ApiProperty({ type: 'string', nullable: true, format: 'date', description: 'Expected delivery date.' })
  expected_date: string | null;

  @ApiProperty({ type: 'string', format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: 'string', format: 'date-time' })
  updated_at: string;
}
