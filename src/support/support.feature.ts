import type { FeatureManifest } from '../platform/features/feature-manifest.js';
import { SupportDemoSeeder } from './support-demo.seeder.js';
import { SupportModule } from './support.module.js';
import { ticketsResource } from './tickets.resource.js';

export const supportFeature: FeatureManifest = {
  name: 'support',
  modules: [SupportModule],
  resources: [ticketsResource],
  summary: async () => (await import('./support.summary.js')).supportSummary,
  seeder: { type: SupportDemoSeeder },
  tags: { Support: 'Support tickets (read-only).' },
};
