/**
 * A keyset page that ends early where its rows would pass a budget of their own (lines,
 * bytes): one company's large records must not make a page of tens of MB, which would take the
 * process's time from every other company's requests.
 *
 * `rows` is the page as fetched: newest first by `created_at` then `id`, at most the page size
 * plus one. `weight` is an expression of a row (alias `r`) counted against `budget`; `columns`
 * are what the statement answers of each kept row (alias `i`), evaluated only for kept rows, so
 * a cut row's large values are never read. The first row is kept whatever its weight, so a page
 * always moves on. Each answered row also has `fetched`, the rows before the cut: `budgetCut`.
 */
export function budgetedPageSql(rows: string, weight: string, budget: number, columns: string): string {
  return `SELECT ${columns}, i.fetched::int AS fetched
    FROM (
      SELECT r.*, count(*) OVER () AS fetched, row_number() OVER w AS n, sum(${weight}) OVER w AS weight_through
        FROM (${rows}) r
      WINDOW w AS (ORDER BY r.created_at DESC, r.id DESC)
    ) i
   WHERE i.n = 1 OR i.weight_through <= ${budget}
   ORDER BY i.created_at DESC, i.id DESC`;
}

/** Whether a budgeted page left rows out, so that more follow (KeysetRows.cut). */
export function budgetCut(rows: readonly { fetched: number }[]): boolean {
  return rows.length < (rows[0]?.fetched ?? 0);
}
