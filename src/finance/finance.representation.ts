import { In } from 'typeorm';
import { timestamp } from '../platform/resources/representation.js';
import type { TenantScope } from '../platform/tenancy/tenant-data.js';
import type { BillDto } from './dto/bill.dto.js';
import type { InvoiceDto, InvoiceLineDto } from './dto/invoice.dto.js';
import type { PaymentDto } from './dto/payment.dto.js';
import type { PurchaseOrderDto } from './dto/purchase-order.dto.js';
import type { Bill } from './bill.entity.js';
import { InvoiceLine } from './invoice-line.entity.js';
import type { Invoice } from './invoice.entity.js';
import type { Payment } from './payment.entity.js';
import type { PurchaseOrder } from './purchase-order.entity.js';

/** The API representation of the finance resources (spec section 2), also the events' `data`. */
export function invoiceResource(invoice: Invoice, lines: InvoiceLine[]): InvoiceDto {
  return {
    id: invoice.id,
    number: invoice.number,
    customer_id: invoice.customerId,
    status: invoice.status,
    currency: invoice.currency,
    subtotal_minor: invoice.subtotalMinor,
    tax_minor: invoice.taxMinor,
    total_minor: invoice.totalMinor,
    paid_minor: invoice.paidMinor,
    balance_minor: invoice.balanceMinor,
    issue_date: invoice.issueDate,
    due_date: invoice.dueDate,
    issued_at: timestamp(invoice.issuedAt),
    voided_at: timestamp(invoice.voidedAt),
    einvoice_status: invoice.einvoiceStatus,
    notes: invoice.notes,
    sales_order_id: invoice.salesOrderId,
    lines: [...lines].sort((a, b) => a.position - b.position).map(invoiceLineResource),
    created_at: timestamp(invoice.createdAt),
    updated_at: timestamp(invoice.updatedAt),
  };
}

/** Invoices of one company with their lines, loaded in one query. */
export async function invoiceResources(scope: TenantScope, invoices: Invoice[]): Promise<InvoiceDto[]> {
  if (invoices.length === 0) return [];
  const lines = await scope.repository(InvoiceLine).find({
    where: { invoiceId: In(invoices.map((invoice) => invoice.id)) },
    order: { position: 'ASC' },
  });
  return invoices.map((invoice) => invoiceResource(invoice, lines.filter((line) => line.invoiceId === invoice.id)));
}

function invoiceLineResource(line: InvoiceLine): InvoiceLineDto {
  return {
    id: line.id,
    description: line.description,
    qty: Number(line.qty),
    unit_price_minor: line.unitPriceMinor,
    tax_rate: Number(line.taxRate),
    product_id: line.productId,
    tax_rate_id: line.taxRateId,
    net_minor: line.netMinor,
    tax_minor: line.taxMinor,
    total_minor: line.netMinor + line.taxMinor,
  };
}

export function paymentResource(payment: Payment): PaymentDto {
  return {
    id: payment.id,
    tenant_id: payment.tenantId,
    invoice_id: payment.invoiceId,
    bill_id: payment.billId,
    amount_minor: payment.amountMinor,
    currency: payment.currency,
    direction: payment.direction,
    status: payment.status,
    received_at: timestamp(payment.receivedAt),
    failure_reason: payment.failureReason,
    created_at: timestamp(payment.createdAt),
    updated_at: timestamp(payment.updatedAt),
  };
}

export function billResource(bill: Bill): BillDto {
  return {
    id: bill.id,
    number: bill.number,
    supplier_name: bill.supplierName,
    purchase_order_id: bill.purchaseOrderId,
    status: bill.status,
    currency: bill.currency,
    subtotal_minor: bill.subtotalMinor,
    tax_minor: bill.taxMinor,
    total_minor: bill.totalMinor,
    paid_minor: bill.paidMinor,
    balance_minor: bill.balanceMinor,
    issue_date: bill.issueDate,
    due_date: bill.dueDate,
    created_at: timestamp(bill.createdAt),
    updated_at: timestamp(bill.updatedAt),
  };
}

export function purchaseOrderResource(order: PurchaseOrder): PurchaseOrderDto {
  return {
    id: order.id,
    number: order.number,
    supplier_name: order.supplierName,
    status: order.status,
    currency: order.currency,
    subtotal_minor: order.subtotalMinor,
    tax_minor: order.taxMinor,
    total_minor: order.totalMinor,
    order_date: order.orderDate,
    expected_date: order.expectedDate,
    created_at: timestamp(order.createdAt),
    updated_at: timestamp(order.updatedAt),
  };
}
