import { ApiProperty } from '@nestjs/swagger';
import { INVOICE_STATUSES } from '../invoice.entity.js';
import { MINOR, PayableDocumentDto } from './finance-document.dto.js';

const UUID = { type: 'string', format: 'uuid' } as const;

/** How a line appears when an invoice is read: the input members plus its computed amounts. */
export class InvoiceLineDto {
  @ApiProperty(UUID)
  id: string;

  @ApiProperty({ example: 'Consulting, May 2026' })
  description: string;

  @ApiProperty({ type: 'number', minimum: 0, example: 1.5, description: 'As sent on creation.' })
  qty: number;

  @ApiProperty({ ...MINOR, example: 12000 })
  unit_price_minor: number;

  @ApiProperty({
    type: 'number',
    minimum: 0,
    maximum: 100,
    example: 19,
    description: 'Percentage applied to the line (19 means 19 %): the one sent, or the rate of `tax_rate_id` when none was sent.',
  })
  tax_rate: number;

  @ApiProperty({ ...UUID, nullable: true })
  product_id: string | null;

  @ApiProperty({ ...UUID, nullable: true })
  tax_rate_id: string | null;

  @ApiProperty({ ...MINOR, example: 18000, description: 'round(qty × unit_price_minor), half away from zero.' })
  net_minor: number;

  @ApiProperty({ ...MINOR, example: 3420, description: 'round(net_minor × tax_rate / 100), half away from zero.' })
  tax_minor: number;

  @ApiProperty({ ...MINOR, example: 21420, description: 'net_minor + tax_minor.' })
  total_minor: number;
}

export class InvoiceDto extends PayableDocumentDto {
  @ApiProperty(UUID)
  id: string;

  @ApiProperty({
    type: 'string', nullable: true,
    // The example invoice is the draft every create answers.
    example: null,
    description:
      'null while a draft. Assigned when the Finance application issues the invoice: `INV-<year of issue_date>-<6-digit number>`, ' +
      'from a gap-free sequence per company and year.',
  })
  number: string | null;

  @ApiProperty(UUID)
  customer_id: string;

  @ApiProperty({ enum: INVOICE_STATUSES })
  status: string;

  // Inherited members (`declare`) with the invoice's own documentation: only invoices sum them from lines.
  @ApiProperty({ ...MINOR, description: 'Sum of the lines’ net_minor.' })
  declare subtotal_minor: number;

  @ApiProperty({ ...MINOR, description: 'Sum of the lines’ tax_minor.' })
  declare tax_minor: number;

  @ApiProperty({ ...MINOR, description: 'Received and not refunded.' })
  paid_minor: number;

  @ApiProperty({ type: 'string', format: 'date', example: '2026-05-16' })
  issue_date: string;

  @ApiProperty({ type: 'string', format: 'date', example: '2026-05-30' })
  due_date: string;

  @ApiProperty({ type: 'string', nullable: true, format: 'date-time', example: null })
  issued_at: string | null;

  @ApiProperty({ type: 'string', nullable: true, format: 'date-time', example: null })
  voided_at: string | null;

  @ApiProperty({ enum: ['none'], description: 'Always `none` in this version.' })
  einvoice_status: string;

  @ApiProperty({ type: 'string', nullable: true, maxLength: 2000, example: 'Payable within 14 days by bank transfer.' })
  notes: string | null;

  @ApiProperty({ ...UUID, nullable: true })
  sales_order_id: string | null;

  @ApiProperty({ type: [InvoiceLineDto], description: 'The lines in the order they were sent.' })
  lines: InvoiceLineDto[];

  @ApiProperty({ type: 'string', format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: 'string', format: 'date-time' })
  updated_at: string;
}
