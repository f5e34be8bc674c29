import * as z from 'zod';
import { Scope } from '../platform/catalog/scopes.js';
import { countBy, total } from '../platform/resources/count-by.js';
import type { AreaSummary } from '../platform/resources/read-resource.js';

/**
 * How many MIME types the summary names. Each company's documents may carry any number of
 * types; an agent's answer stays small (docs/agent-tool-server.md, "Lean results").
 */
const MIME_TYPES_SHOWN = 20;

const output = z.object({
  documents: z.number().int(),
  total_size_bytes: z.number().int(),
  by_mime_type: z.record(z.string(), z.number().int()).describe(`Kind of file (application/pdf, image/jpeg, ...): the ${MIME_TYPES_SHOWN} most common, most common first.`),
  other_mime_types: z.number().int().describe('Documents of the kinds by_mime_type leaves out.'),
  by_owner_type: z.record(z.string(), z.number().int()).describe('Kind of record the documents belong to.'),
});

export const documentsSummary: AreaSummary<z.infer<typeof output>> = {
  area: 'documents',
  title: 'Documents summary',
  description: 'Documents by kind: counts per MIME type and per owning record type, the total number and their total size. Metadata only, never contents.',
  scopes: [Scope.FilesDocumentsRead],
  output,
  async compute(scope) {
    // The total is read with the most common types, so the other kinds' count is of the same rows.
    const common = await scope.query<{ value: string; count: number; documents: number }>(
      `SELECT mime_type AS value, count(*)::int AS count, (sum(count(*)) OVER ())::int AS documents
         FROM documents WHERE tenant_id = $1 GROUP BY mime_type ORDER BY count(*) DESC, mime_type LIMIT ${MIME_TYPES_SHOWN}`,
    );
    const byMime = Object.fromEntries(common.map((row) => [row.value, row.count]));
    const documents = common[0]?.documents ?? 0;
    const [{ size }] = await scope.query<{ size: string }>(`SELECT coalesce(sum(size_bytes), 0)::bigint AS size FROM documents WHERE tenant_id = $1`);
    return {
      documents,
      total_size_bytes: Number(size),
      by_mime_type: byMime,
      other_mime_types: documents - total(byMime),
      by_owner_type: await countBy(scope, 'documents', 'owner_type'),
    };
  },
};
