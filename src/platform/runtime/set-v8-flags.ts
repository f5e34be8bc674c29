/**
 * Sets the V8 flags (`v8-flags.ts`) when imported: the one static import of `src/main.ts` (and of
 * the benchmarks' reference servers, by `--import`), which imports everything else after it. They
 * did not take full effect for the modules loaded before them: an ES module's whole static import
 * graph is loaded before its body runs, and with the flags set in `main.ts`'s body (until the
 * twenty-second session), the modules `main.ts` imported (the database layer, pg, TypeORM, the
 * logger, the metrics) had been loaded under V8's defaults. The API process then promoted 13-16
 * KB of every request's objects to the old generation: young collections took three times as
 * long, a full collection ran every 2 s, and a retrieve cost a third more CPU (docs/benchmarks.md,
 * "The twenty-second session").
 */
import { applyV8Flags } from './v8-flags.js';

applyV8Flags();
