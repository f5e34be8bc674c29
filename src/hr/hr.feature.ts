import type { FeatureManifest } from '../platform/features/feature-manifest.js';
import { employeesResource } from './employees.resource.js';
import { HrDemoSeeder } from './hr-demo.seeder.js';
import { HrModule } from './hr.module.js';
import { leaveRequestsResource } from './leave-requests.resource.js';
import { timesheetsResource } from './timesheets.resource.js';

export const hrFeature: FeatureManifest = {
  name: 'hr',
  modules: [HrModule],
  resources: [employeesResource, leaveRequestsResource, timesheetsResource],
  summary: async () => (await import('./hr.summary.js')).hrSummary,
  seeder: { type: HrDemoSeeder },
  tags: { HR: 'Employees, leave requests and timesheets (read-only).' },
};
