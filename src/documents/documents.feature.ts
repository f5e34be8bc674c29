import type { FeatureManifest } from '../platform/features/feature-manifest.js';
import { DocumentsDemoSeeder } from './documents-demo.seeder.js';
import { DocumentsModule } from './documents.module.js';
import { documentsResource } from './documents.resource.js';

export const documentsFeature: FeatureManifest = {
  name: 'documents',
  modules: [DocumentsModule],
  resources: [documentsResource],
  summary: async () => (await import('./documents.summary.js')).documentsSummary,
  // Documents attach to the records of every seeder that returns `<owner>_ids`.
  seeder: { type: DocumentsDemoSeeder, after: ['finance', 'hr', 'fleet', 'support'] },
  tags: { Documents: 'Document metadata: file name, type, size, checksum and owner (read-only).' },
};
