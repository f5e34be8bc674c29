import type { TenantScope } from '../platform/tenancy/tenant-data.js';

/**
 * Gap-free document numbers per company, kind and year: `INV-2026-000001`, `CN-2026-000001`,
 * `PO-2026-000001`. The counter row is updated inside the caller's transaction, so concurrent
 * issuers queue on its row lock and a rolled-back transaction gives its number back.
 */
const PREFIX = { invoice: 'INV', credit_note: 'CN', purchase_order: 'PO' } as const;
export type DocumentKind = keyof typeof PREFIX;

function formatDocumentNumber(kind: DocumentKind, year: number, value: number): string {
  return `${PREFIX[kind]}-${String(year).padStart(4, '0')}-${String(value).padStart(6, '0')}`;
}

export async function nextDocumentNumber(scope: TenantScope, kind: DocumentKind, year: number): Promise<string> {
  const [number] = await reserveDocumentNumbers(scope, kind, [year]);
  return number!;
}

/**
 * Numbers for documents of `years`, in order: one counter update per year instead of one per
 * document (the demo seeder numbers thousands at once). A null year gets no number.
 */
export async function reserveDocumentNumbers(scope: TenantScope, kind: DocumentKind, years: readonly (number | null)[]): Promise<(string | null)[]> {
  const counts = new Map<number, number>();
  for (const year of years) if (year !== null) counts.set(year, (counts.get(year) ?? 0) + 1);
  const next = new Map<number, number>();
  for (const [year, count] of counts) {
    const rows = await scope.query<{ last_value: string }>(
      `INSERT INTO finance_number_sequences (tenant_id, kind, year, last_value) VALUES ($1, $2, $3, $4)
       ON CONFLICT (tenant_id, kind, year) DO UPDATE SET last_value = finance_number_sequences.last_value + $4
       RETURNING last_value`,
      [kind, year, count],
    );
    next.set(year, Number(rows[0].last_value) - count + 1);
  }
  return years.map((year) => {
    if (year === null) return null;
    const value = next.get(year)!;
    next.set(year, value + 1);
    return formatDocumentNumber(kind, year, value);
  });
}
