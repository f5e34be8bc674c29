import * as z from 'zod';
import { Scope } from '../platform/catalog/scopes.js';
import type { AreaSummary } from '../platform/resources/read-resource.js';

/**
 * A sum of balances, exact: each balance is at most 2^53 − 1 (the spec's exact integers), but a
 * company's sum can pass what a JSON number holds exactly, and then comes as a string of its
 * digits rather than rounded (or refused by the integer schema, which cost the whole summary).
 */
const balanceSum = z
  .union([z.number().int(), z.string().regex(/^\d+$/)])
  .describe('Minor units: an integer, or a string of its digits when above 9007199254740991 (2^53 − 1), which a JSON number cannot hold exactly.');

/** PostgreSQL's sum of bigints, as text: a number while it is exact, else its digits. */
function exactSum(digits: string): number | string {
  const sum = Number(digits);
  return Number.isSafeInteger(sum) ? sum : digits;
}

const output = z.object({
  invoices_by_currency: z
    .array(
      z.object({
        currency: z.string(),
        open_count: z.number().int().describe('Issued, partial or overdue invoices with a balance.'),
        open_balance_minor: balanceSum,
        overdue_count: z.number().int().describe('Open invoices marked overdue or past their due date.'),
        overdue_balance_minor: balanceSum,
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
              coalesce(sum(balance_minor) FILTER (WHERE ${open}), 0)::text AS open_balance_minor,
              count(*) FILTER (WHERE ${overdue})::int AS overdue_count,
              coalesce(sum(balance_minor) FILTER (WHERE ${overdue}), 0)::text AS overdue_balance_minor
         FROM invoices WHERE tenant_id = $1 GROUP BY currency ORDER BY currency`,
    );
    const statuses = await scope.query<{ status: string; count: number }>(
      `SELECT status, count(*)::int AS count FROM invoices WHERE tenant_id = $1 GROUP BY status ORDER BY status`,
    );
    return {
      invoices_by_currency: totals.map((row) => ({
        ...row,
        open_balance_minor: exactSum(row.open_balance_minor),
        overdue_balance_minor: exactSum(row.overdue_balance_minor),
      })),
      invoices_by_status: Object.fromEntries(statuses.map((row) => [row.status, row.count])),
    };
  },
};
