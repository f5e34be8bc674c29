import { DomainException } from '../platform/errors/domain.exception.js';
import type { CreateInvoiceDto } from './dto/create-invoice.dto.js';
import { defaultDueDate } from './dto/invoice-checks.js';
import type { UpdateInvoiceDto } from './dto/update-invoice.dto.js';
import type { VoidInvoiceDto } from './dto/void-invoice.dto.js';
import { type Decimal, decimalOf } from './invoice-totals.js';

/**
 * Invoice write bodies as the service uses them. The checks live in the DTOs
 * (`dto/create-invoice.dto.ts`, `dto/invoice-checks.ts`), run by the one request-body validation
 * path; what is left here turns a valid DTO into domain input (decimals, defaults, lower-case
 * ids). The service then checks, in order: currency enabled, references (customer, products, tax
 * rates), a line's tax_rate against its tax_rate_id (line_invalid), and the invoice total
 * (create_failed).
 */
const WRITABLE_FIELDS = ['customer_id', 'currency', 'issue_date', 'due_date', 'notes'] as const;

export interface InvoiceLineInput {
  description: string;
  qty: Decimal;
  unitPriceMinor: bigint;
  /** null when the line names a tax_rate_id and leaves the rate to that record. */
  taxRate: Decimal | null;
  productId: string | null;
  taxRateId: string | null;
}

export interface CreateInvoiceInput {
  customerId: string;
  currency: string;
  issueDate: string;
  dueDate: string;
  notes: string | null;
  lines: InvoiceLineInput[];
}

export type InvoiceChanges = Partial<{
  customerId: string;
  currency: string;
  issueDate: string;
  dueDate: string;
  notes: string | null;
}>;

const orNull = <T>(value: T | null | undefined): T | null => value ?? null;

/**
 * A validated create body as domain input. `today` is the company's date (UTC): the default
 * issue_date, and the base of the default due_date (issue_date + 14 days).
 */
export function toCreateInvoiceInput(body: CreateInvoiceDto, today: string): CreateInvoiceInput {
  const issueDate = body.issue_date ?? today;
  const dueDate = body.due_date ?? defaultDueDate(issueDate);
  // The body's check saw its own today: a request that reaches this after midnight UTC defaults
  // issue_date to the new day, which a due_date of the old one is now before.
  assertDueNotBeforeIssue(issueDate, dueDate);
  return {
    customerId: body.customer_id.toLowerCase(),
    currency: body.currency,
    issueDate,
    dueDate,
    notes: orNull(body.notes),
    lines: body.lines.map((line) => ({
      description: line.description,
      qty: decimalOf(line.qty),
      unitPriceMinor: decimalOf(line.unit_price_minor).units,
      taxRate: line.tax_rate === undefined || line.tax_rate === null ? null : decimalOf(line.tax_rate),
      productId: orNull(line.product_id?.toLowerCase()),
      taxRateId: orNull(line.tax_rate_id?.toLowerCase()),
    })),
  };
}

/** A validated PATCH body as changes; a body naming none of the writable fields is `no_writable_fields`. */
export function toInvoiceChanges(body: UpdateInvoiceDto): InvoiceChanges {
  const changes: InvoiceChanges = {};
  if (body.customer_id !== undefined) changes.customerId = body.customer_id.toLowerCase();
  if (body.currency !== undefined) changes.currency = body.currency;
  if (body.issue_date !== undefined) changes.issueDate = body.issue_date;
  if (body.due_date !== undefined) changes.dueDate = body.due_date;
  if (body.notes !== undefined) changes.notes = body.notes;
  if (Object.keys(changes).length === 0) {
    throw new DomainException('InvoiceNoWritableFields', `The body names none of the writable fields: ${WRITABLE_FIELDS.join(', ')}.`);
  }
  return changes;
}

/** The rule on the invoice as it will be: due_date must not be before issue_date. */
export function assertDueNotBeforeIssue(issueDate: string, dueDate: string): void {
  if (dueDate < issueDate) {
    const message = `due_date ${dueDate} is before issue_date ${issueDate}`;
    throw new DomainException('InvoiceValidationFailed', message, { errors: [{ path: 'due_date', code: 'due_before_issue', message }] });
  }
}

/** The reason of a validated void body (optional, `{ "reason": string|null }`): null when not given. */
export function toVoidReason(body: VoidInvoiceDto): string | null {
  return orNull(body.reason);
}
