import * as z from 'zod';
import { Scope } from '../platform/catalog/scopes.js';
import { countBy, total } from '../platform/resources/count-by.js';
import type { AreaSummary } from '../platform/resources/read-resource.js';

const output = z.object({
  documents: z.number().int(),
  total_size_bytes: z.number().int(),
  by_mime_type: z.record(z.string(), z.number().int()).describe('Kind of file: application/pdf, image/jpeg, ...'),
  by_owner_type: z.record(z.string(), z.number().int()).describe('Kind of record the documents belong to.'),
});

export const documentsSummary: AreaSummary<z.infer<typeof output>> = {
  area: 'documents',
  title: 'Documents summary',
  description: 'Documents by kind: counts per MIME type and per owning record type, the total number and their total size. Metadata only, never contents.',
  scopes: [Scope.FilesDocumentsRead],
  output,
  async compute(scope) {
    const byMime = await countBy(scope, 'documents', 'mime_type');
    const [{ size }] = await scope.query<{ size: string }>(`SELECT coalesce(sum(size_bytes), 0)::bigint AS size FROM documents WHERE tenant_id = $1`);
    return {
      documents: total(byMime),
      total_size_bytes: Number(size),
      by_mime_type: byMime,
      by_owner_type: await countBy(scope, 'documents', 'owner_type'),
    };
  },
};
