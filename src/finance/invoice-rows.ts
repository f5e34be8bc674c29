import type { CursorPosition } from '../platform/pagination/cursor-codec.js';
import { budgetCut, budgetedPageSql } from '../platform/pagination/budgeted-page.js';
import type { KeysetRows } from '../platform/pagination/paginator.service.js';
import type { TenantScope } from '../platform/tenancy/tenant-data.js';
import { numericColumn } from '../platform/resources/representation.js';
import type { InvoiceDto } from './dto/invoice.dto.js';
import { type Decimal, formatDecimal, type InvoiceTotals } from './invoice-totals.js';
import { invoiceResource } from './finance.representation.js';
import type { InvoiceLine } from './invoice-line.entity.js';
import type { Invoice, InvoiceStatus } from './invoice.entity.js';

/**
 * The invoice's rows in plain SQL, as prepared statements with no query builder between: the
 * retrieve and the list page (each invoice with its lines, a JSON array in position order, in one
 * statement, mapped by a plain mapper), and the create (the references it names, then the
 * invoice with all its lines). Dates come as text, so no time zone can shift them; amounts as
 * text, read exactly by `numericColumn`.
 */
const INVOICE_WITH_LINES_COLUMNS = `
  i.id, i.tenant_id, i.number, i.customer_id, i.status, i.currency,
  i.subtotal_minor, i.tax_minor, i.total_minor, i.paid_minor, i.balance_minor,
  i.issue_date::text AS issue_date, i.due_date::text AS due_date, i.issued_at, i.voided_at, i.overdue_at,
  i.einvoice_status, i.notes, i.sales_order_id, i.created_at, i.updated_at,
  COALESCE((SELECT json_agg(json_build_object(
      'id', l.id, 'position', l.position, 'description', l.description, 'qty', l.qty::text,
      'unit_price_minor', l.unit_price_minor::text, 'tax_rate', l.tax_rate::text, 'product_id', l.product_id,
      'tax_rate_id', l.tax_rate_id, 'net_minor', l.net_minor::text, 'tax_minor', l.tax_minor::text) ORDER BY l.position)
    FROM invoice_lines l WHERE l.tenant_id = i.tenant_id AND l.invoice_id = i.id), '[]') AS lines`;

const RETRIEVE_SQL = `SELECT ${INVOICE_WITH_LINES_COLUMNS} FROM invoices i WHERE i.tenant_id = $1 AND i.id = $2`;

/**
 * Bytes of lines a list page carries at most (its first invoice whatever its size). An invoice
 * holds up to 500 lines of up to 1,000 characters (up to 4 bytes each in UTF-8), so a page of 100
 * such invoices would be about 200 MB of JSON: seconds of the process's event loop, taken from
 * every other company's requests. A budget of lines alone let a page of two-byte characters
 * reach 11 MB, and a review measured another company's p50 at 470 ms while such pages were
 * read; a page that reaches this budget ends early, with `has_more` and a cursor after its last
 * invoice. Descriptions count as stored: escaped in JSON, a control character stored in one byte
 * is six (`\u0001`), so such pages can reach 3.26 MB (the fairness review); counting them as sent
 * (`to_json`) made every page's budget 4 to 25 times dearer for PostgreSQL, for all companies.
 */
export const PAGE_BYTE_BUDGET = 1_000_000;

/** What a line's JSON takes besides its description's bytes (ids, amounts, member names). */
export const LINE_JSON_BYTES = 250;

/**
 * A list page: the next `$2` invoices of the company ($1) in the Paginator's keyset order, cut
 * where their lines would pass PAGE_BYTE_BUDGET, before any line is read into JSON
 * (budgetedPageSql). Two statements rather than one with an optional cursor: `$3 IS NULL OR
 * (…) < (…)` would keep the cursor out of the index condition in a generic plan, and page 200
 * would filter its way through every newer invoice.
 */
const pageSql = (after: string) =>
  budgetedPageSql(
    `SELECT * FROM invoices i WHERE i.tenant_id = $1 ${after} ORDER BY i.created_at DESC, i.id DESC LIMIT $2`,
    `(SELECT coalesce(sum(octet_length(l.description) + ${LINE_JSON_BYTES}), 0) FROM invoice_lines l WHERE l.tenant_id = r.tenant_id AND l.invoice_id = r.id)`,
    PAGE_BYTE_BUDGET,
    `${INVOICE_WITH_LINES_COLUMNS}, to_char(i.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS page_cursor_ts`,
  );
const FIRST_PAGE_SQL = pageSql('');
const PAGE_AFTER_SQL = pageSql(`AND (i.created_at, i.id) < (CAST($3 AS timestamp) AT TIME ZONE 'UTC', CAST($4 AS uuid))`);

interface InvoiceRow {
  id: string;
  tenant_id: string;
  number: string | null;
  customer_id: string;
  status: InvoiceStatus;
  currency: string;
  subtotal_minor: string;
  tax_minor: string;
  total_minor: string;
  paid_minor: string;
  balance_minor: string;
  issue_date: string;
  due_date: string;
  issued_at: Date | null;
  voided_at: Date | null;
  overdue_at: Date | null;
  einvoice_status: string;
  notes: string | null;
  sales_order_id: string | null;
  created_at: Date;
  updated_at: Date;
  lines: LineJson[];
}

interface PagePosition {
  page_cursor_ts: string;
  fetched: number;
}

interface LineJson {
  id: string;
  position: number;
  description: string;
  qty: string;
  unit_price_minor: string;
  tax_rate: string;
  product_id: string | null;
  tax_rate_id: string | null;
  net_minor: string;
  tax_minor: string;
}

const amount = (text: string): number => numericColumn.from(text) as number;

function invoiceFromRow(row: InvoiceRow): { invoice: Invoice; lines: InvoiceLine[] } {
  const invoice: Invoice = {
    id: row.id,
    tenantId: row.tenant_id,
    number: row.number,
    customerId: row.customer_id,
    status: row.status,
    currency: row.currency,
    subtotalMinor: amount(row.subtotal_minor),
    taxMinor: amount(row.tax_minor),
    totalMinor: amount(row.total_minor),
    paidMinor: amount(row.paid_minor),
    balanceMinor: amount(row.balance_minor),
    issueDate: row.issue_date,
    dueDate: row.due_date,
    issuedAt: row.issued_at,
    voidedAt: row.voided_at,
    overdueAt: row.overdue_at,
    einvoiceStatus: row.einvoice_status,
    notes: row.notes,
    salesOrderId: row.sales_order_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  const lines = row.lines.map(
    (line): InvoiceLine => ({
      id: line.id,
      tenantId: row.tenant_id,
      invoiceId: row.id,
      position: line.position,
      description: line.description,
      qty: line.qty,
      unitPriceMinor: amount(line.unit_price_minor),
      taxRate: line.tax_rate,
      productId: line.product_id,
      taxRateId: line.tax_rate_id,
      netMinor: amount(line.net_minor),
      taxMinor: amount(line.tax_minor),
      // Not part of the representation, and not read.
      createdAt: row.created_at,
    }),
  );
  return { invoice, lines };
}

/** One invoice of the company as the API shows it, or undefined; in a write's transaction, as that write left it. */
export async function retrieveInvoice(scope: TenantScope, id: string): Promise<InvoiceDto | undefined> {
  const [row] = await scope.hotQuery<InvoiceRow>('invoices-retrieve', RETRIEVE_SQL, [id]);
  return row ? invoiceDtoOfRow(row) : undefined;
}

/** A row of INVOICE_READS as the API shows it. */
export function invoiceDtoOfRow(row: InvoiceRow): InvoiceDto {
  const { invoice, lines } = invoiceFromRow(row);
  return invoiceResource(invoice, lines);
}

/**
 * The statements of the retrieve and the first list page ($1 the company, then the id or the
 * page size plus one). Exported for the request-path bench, whose baseline runs exactly these
 * and `invoiceDtoOfRow` with no framework around them.
 */
export const INVOICE_READS = { retrieve: RETRIEVE_SQL, firstPage: FIRST_PAGE_SQL } as const;

/** A list page of the company's invoices as the API shows them (see ReadResource.list). */
export async function listInvoices(scope: TenantScope, after: CursorPosition | undefined, take: number): Promise<KeysetRows<InvoiceDto>> {
  const rows = after
    ? await scope.hotQuery<InvoiceRow & PagePosition>('invoices-page-after', PAGE_AFTER_SQL, [take, after.createdAt, after.id])
    : await scope.hotQuery<InvoiceRow & PagePosition>('invoices-page-first', FIRST_PAGE_SQL, [take]);
  return {
    rows: rows.map((row) => ({ item: invoiceDtoOfRow(row), position: { createdAt: row.page_cursor_ts, id: row.id } })),
    cut: budgetCut(rows),
  };
}

/**
 * What a write names, read in one statement: whether the company has the currency enabled,
 * whether the customer is its own, which of the products are, and the rates of those of the tax
 * rate records that are. A currency or customer given as null is not asked about.
 */
const REFERENCES_SQL = `SELECT
    (SELECT $2::text = ANY (t.currencies) FROM tenants t WHERE t.id = $1) AS currency_enabled,
    EXISTS (SELECT 1 FROM customers c WHERE c.tenant_id = $1 AND c.id = $3::uuid) AS customer_found,
    ARRAY (SELECT p.id FROM products p WHERE p.tenant_id = $1 AND p.id = ANY ($4::uuid[])) AS product_ids,
    coalesce((SELECT json_object_agg(r.id, r.rate::text) FROM tax_rates r WHERE r.tenant_id = $1 AND r.id = ANY ($5::uuid[])), '{}') AS tax_rates`;

export interface ReferencesAsked {
  currency?: string;
  customerId?: string;
  productIds?: readonly string[];
  taxRateIds?: readonly string[];
}

export interface ReferencesFound {
  /** null when no currency was asked about (or the company's row is gone). */
  currency_enabled: boolean | null;
  customer_found: boolean;
  product_ids: string[];
  /** Rate (decimal text) by tax rate id. */
  tax_rates: Record<string, string>;
}

export async function findReferences(scope: TenantScope, asked: ReferencesAsked): Promise<ReferencesFound> {
  const [found] = await scope.hotQuery<ReferencesFound>('finance-references', REFERENCES_SQL, [
    asked.currency ?? null,
    asked.customerId ?? null,
    asked.productIds ?? [],
    asked.taxRateIds ?? [],
  ]);
  return found;
}

/**
 * A draft and all its lines in one statement, whatever their number: the lines go in as one array
 * per column (unnested in order, so `position` is the index in the body), and the statement's
 * text never changes, so it is prepared once per connection. Amounts travel as decimal text, so
 * none passes through a double.
 */
const INSERT_DRAFT_SQL = `WITH invoice AS (
    INSERT INTO invoices (tenant_id, customer_id, status, currency, subtotal_minor, tax_minor, total_minor, paid_minor, balance_minor,
                          issue_date, due_date, einvoice_status, notes)
    VALUES ($1::uuid, $2::uuid, 'draft', $3::text, $4::bigint, $5::bigint, $6::bigint, 0, $6::bigint, $7::date, $8::date, 'none', $9::text)
    RETURNING id),
  lines AS (
    INSERT INTO invoice_lines (tenant_id, invoice_id, position, description, qty, unit_price_minor, tax_rate, product_id, tax_rate_id, net_minor, tax_minor)
    SELECT $1::uuid, invoice.id, line.ordinality - 1, line.description, line.qty, line.unit_price_minor, line.tax_rate, line.product_id, line.tax_rate_id,
           line.net_minor, line.tax_minor
      FROM invoice,
           unnest($10::text[], $11::numeric[], $12::bigint[], $13::numeric[], $14::uuid[], $15::uuid[], $16::bigint[], $17::bigint[])
             WITH ORDINALITY AS line (description, qty, unit_price_minor, tax_rate, product_id, tax_rate_id, net_minor, tax_minor, ordinality))
  SELECT id FROM invoice`;

export interface DraftLine {
  description: string;
  qty: Decimal;
  unitPriceMinor: bigint;
  taxRate: Decimal;
  productId: string | null;
  taxRateId: string | null;
  netMinor: bigint;
  taxMinor: bigint;
}

export interface Draft {
  customerId: string;
  currency: string;
  totals: InvoiceTotals;
  issueDate: string;
  dueDate: string;
  notes: string | null;
  lines: readonly DraftLine[];
}

/** Inserts a draft with its lines; answers its id. */
export async function insertDraft(scope: TenantScope, draft: Draft): Promise<string> {
  const column = <T>(pick: (line: DraftLine) => T): T[] => draft.lines.map(pick);
  const [{ id }] = await scope.hotQuery<{ id: string }>('invoices-insert-draft', INSERT_DRAFT_SQL, [
    draft.customerId,
    draft.currency,
    String(draft.totals.subtotalMinor),
    String(draft.totals.taxMinor),
    String(draft.totals.totalMinor),
    draft.issueDate,
    draft.dueDate,
    draft.notes,
    column((line) => line.description),
    column((line) => formatDecimal(line.qty)),
    column((line) => String(line.unitPriceMinor)),
    column((line) => formatDecimal(line.taxRate)),
    column((line) => line.productId),
    column((line) => line.taxRateId),
    column((line) => String(line.netMinor)),
    column((line) => String(line.taxMinor)),
  ]);
  return id;
}
