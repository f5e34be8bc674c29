import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings every role runs with. NODE_OPTIONS refuses both, so they are set at runtime, by
 * `src/main.ts`'s one static import (`set-v8-flags.ts`), before any other module is loaded: set
 * so, they take effect for the whole process (`test/v8-flags.e2e-spec.ts`).
 *
 * - `--heap-growing-percent=100`: between full collections V8 lets the old generation grow to up
 *   to four times what survived the last one. A role's live heap is about 55 MB, but the garbage
 *   it made under load held the API process at 200-300 MB resident after `npm run bench`; at
 *   twice the live heap it stays near 220 MB with no measurable cost, where a tighter 50 % cost
 *   p99 latency (docs/benchmarks.md, "Memory").
 * - `--no-allocation-site-pretenuring`: once most objects of one allocation site have survived a
 *   young collection, V8 allocates that site's objects in the old generation from then on. pg
 *   builds every row of every query at one site, and in the API process V8 had marked it so:
 *   every request's rows were born old, and each young collection kept the rows' strings and
 *   dates alive through the dead rows that pointed at them, and copied them. Under
 *   `GET /v1/invoices?limit=50` young collections took 6-8 ms instead of 2 and the old generation
 *   grew 1.5 MB at each; without pretenuring the list costs 1.38-1.60 ms of CPU instead of
 *   1.65-1.9 (docs/benchmarks.md, "The fifteenth session").
 */
const V8_FLAGS = ['--heap-growing-percent=100', '--no-allocation-site-pretenuring'] as const;

export function applyV8Flags(): void {
  for (const flag of V8_FLAGS) setFlagsFromString(flag);
}
