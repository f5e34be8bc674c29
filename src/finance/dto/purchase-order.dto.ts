import { ApiProperty } from '@nestjs/swagger';
import { PURCHASE_ORDER_STATUSES } from '../purchase-order.entity.js';
import { FinanceDocumentDto } from './finance-document.dto.js';

/** An order the company placed with a supplier. */
export class PurchaseOrderDto extends FinanceDocumentDto {
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

  @ApiProperty({ type: 'string', format: 'date' })
  order_date: string;

  @ApiProperty({ type: 'string', nullable: true, format: 'date', description: 'Expected delivery date.' })
  expected_date: string | null;

  @ApiProperty({ type: 'string', format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: 'string', format: 'date-time' })
  updated_at: string;
}
