import { ApiProperty } from '@nestjs/swagger';
import { BILL_STATUSES } from '../bill.entity.js';
import { MINOR, PayableDocumentDto } from './finance-document.dto.js';

/** A supplier's invoice to the company. */
export class BillDto extends PayableDocumentDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'RE-2026-0815', description: 'The supplier’s own document number; unique per supplier.' })
  number: string;

  @ApiProperty({ example: 'Müller Bürobedarf GmbH' })
  supplier_name: string;

  @ApiProperty({ type: 'string', nullable: true, format: 'uuid', description: 'The purchase order the bill settles, if any.' })
  purchase_order_id: string | null;

  @ApiProperty({
    enum: BILL_STATUSES,
    description: '`draft` (being entered), `open` (approved, unpaid), `partial`, `overdue` (past due with a balance), `paid`, `void`.',
  })
  status: string;

  @ApiProperty({ ...MINOR, description: 'Paid to the supplier so far.' })
  paid_minor: number;

  @ApiProperty({ type: 'string', format: 'date', description: 'The supplier’s document date.' })
  issue_date: string;

  @ApiProperty({ type: 'string', format: 'date' })
  due_date: string;

  @ApiProperty({ type: 'string', format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: 'string', format: 'date-time' })
  updated_at: string;
}
