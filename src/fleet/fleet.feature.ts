import type { FeatureManifest } from '../platform/features/feature-manifest.js';
import { FleetDemoSeeder } from './fleet-demo.seeder.js';
import { FleetModule } from './fleet.module.js';
import { fuelLogsResource } from './fuel-logs.resource.js';
import { vehiclesResource } from './vehicles.resource.js';
import { workOrdersResource } from './work-orders.resource.js';

export const fleetFeature: FeatureManifest = {
  name: 'fleet',
  modules: [FleetModule],
  resources: [workOrdersResource, vehiclesResource, fuelLogsResource],
  summary: async () => (await import('./fleet.summary.js')).fleetSummary,
  // Vehicles get HR's employees as drivers.
  seeder: { type: FleetDemoSeeder, after: ['hr'] },
  tags: { Fleet: 'Vehicles, work orders and fuel logs (read-only).' },
};
