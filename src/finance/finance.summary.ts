import * as z from 'zod';
import { Scope } from '../platform/catalog/scopes.js';
import type { AreaSummary } from '../platform/resources/read-resource.js';

const output = z.object({
  invoices_by_currency: z
    .array(
      z.object({
        currency: z.string(),
        open_count: z.number().int().describe('Issued, partial or overdue invoices with a balance.'),
        open_balance_minor: z.number().int(),
        overdue_count: z.number().int().describe('Open invoices marked overdue or past their due date.'),
        overdue_balance_minor: z.number().int(),
      }),
    )
    .describe('Per currency; amounts in minor units. Never add amounts of different currencies.'),
  invoices_by_status: z
    .record(z.string(), z.number().int())
    .describe('Invoices per recorded status: one issued and past its due date counts as issued here, and as overdue in overdue_count.'),
});

interface InvoiceTotalsRow {
  currency: string;
  open_count: number;
  open_balance_minor: string;
  overdue_count: number;
  overdue_balance_minor: string;
}

export const financeSummary: AreaSummary<z.infer<typeof output>> = {
  area: 'finance',
  title: 'Finance summary',
  description:
    'Open and overdue invoice totals per currency (count and balance in minor units), and the number of invoices in each status. ' +
    'Use it to answer "how much is outstanding / overdue"; then list or search the invoices themselves.',
  scopes: [Scope.FinInvoicesRead],
  output,
  async compute(scope) {
    const open = `status IN ('issued', 'partial', 'overdue') AND balance_minor > 0`;
    const overdue = `${open} AND (status = 'overdue' OR due_date < (now() AT TIME ZONE 'UTC')::date)`;
    const totals = await scope.query<InvoiceTotalsRow>(
      `SELECT currency,
              count(*) FILTER (WHERE ${open})::int AS open_count,
              coalesce(sum(balance_minor) FILTER (WHERE ${open}), 0) AS open_balance_minor,
              count(*) FILTER (WHERE ${overdue})::int AS overdue_count,
              coalesce(sum(balance_minor) FILTER (WHERE ${overdue}), 0) AS overdue_balance_minor
         FROM invoices WHERE tenant_id = $1 GROUP BY currency ORDER BY currency`,
    );
    const statuses = await scope.query<{ status: string; count: number }>(
      `SELECT status, count(*)::int AS count FROM invoices WHERE tenant_id = $1 GROUP BY status ORDER BY status`,
    );
    return {
      invoices_by_currency: totals.map((row) => ({
        ...row,
        open_balance_minor: Number(row.open_balance_minor),
        overdue_balance_minor: Number(row.overdue_balance_minor),
      })),
      invoices_by_status: Object.fromEntries(statuses.map((row) => [row.status, row.count])),
    };
  },
};
