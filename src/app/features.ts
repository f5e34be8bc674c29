import type { Type } from '@nestjs/common';
import { documentsFeature } from '../documents/documents.feature.js';
import { financeFeature } from '../finance/finance.feature.js';
import { fleetFeature } from '../fleet/fleet.feature.js';
import { hrFeature } from '../hr/hr.feature.js';
import { mcpFeature } from '../mcp/mcp.feature.js';
import type { CommandGroup } from '../platform/cli/command-group.js';
import type { DemoSeeder } from '../platform/demo/demo-seeder.js';
import type { FeatureManifest } from '../platform/features/feature-manifest.js';
import type { AreaSummary, ReadResource } from '../platform/resources/read-resource.js';
import { supportFeature } from '../support/support.feature.js';
import { webhooksFeature } from '../webhooks/webhooks.feature.js';

/**
 * The features, registered here and nowhere else: each role, the admin CLI, the OpenAPI tags
 * and the tests read their modules, resources, summaries, seeders and commands from this list.
 * Its order is the order of routes, tools (`tools/list`) and CLI help.
 */
export const FEATURES: readonly FeatureManifest[] = [financeFeature, fleetFeature, hrFeature, supportFeature, documentsFeature, webhooksFeature, mcpFeature];

/** The Nest modules of the api, mcp and cli roles. */
export const FEATURE_MODULES: Type[] = FEATURES.flatMap((feature) => feature.modules);

/**
 * The registry of readable resources. The REST list/retrieve routes, their OpenAPI operations
 * and error keys, and the agent-tool server's tools derive from it.
 */
// `any`: each resource has its own entity and DTO types; the declarations themselves are typed.
export const READ_RESOURCES: readonly ReadResource<any, any>[] = FEATURES.flatMap((feature) => feature.resources ?? []);

/** The response DTOs of the registry: the schemas of the events that carry a resource. */
export const RESOURCE_DTOS: readonly Type[] = READ_RESOURCES.map((resource) => resource.item);

export const FEATURE_COMMANDS: CommandGroup[] = FEATURES.flatMap((feature) => (feature.commands ? [feature.commands] : []));

/** Every feature's OpenAPI tag descriptions. */
export const FEATURE_TAGS: Readonly<Record<string, string>> = Object.assign({}, ...FEATURES.map((feature) => feature.tags ?? {}));

/** The worker role's feature modules, imported only when that role starts. */
export function loadWorkerModules(): Promise<Type[]> {
  return Promise.all(FEATURES.flatMap((feature) => (feature.worker ? [feature.worker()] : [])));
}

/** The `summarise_<area>` answers, imported only by the mcp role and `mcp-token:create`. */
export async function loadAreaSummaries(): Promise<AreaSummary[]> {
  const summaries: AreaSummary[] = [];
  // One at a time: jest's ESM loader fails two first imports of a module they share (zod) made at once.
  for (const feature of FEATURES) if (feature.summary) summaries.push(await feature.summary());
  return summaries;
}

/** The demo seeders in the order `seed:demo` runs them: FEATURES order, each after the features it names. */
export function demoSeeders(): Type<DemoSeeder>[] {
  const ordered: Type<DemoSeeder>[] = [];
  const done = new Set<string>();
  const visit = (feature: FeatureManifest, path: readonly string[]) => {
    if (done.has(feature.name) || !feature.seeder) return;
    if (path.includes(feature.name)) throw new Error(`demo seeders wait for each other: ${[...path, feature.name].join(' → ')}`);
    for (const name of feature.seeder.after ?? []) {
      const before = FEATURES.find((candidate) => candidate.name === name);
      if (!before) throw new Error(`the ${feature.name} seeder runs after an unknown feature: ${name}`);
      visit(before, [...path, feature.name]);
    }
    done.add(feature.name);
    ordered.push(feature.seeder.type);
  };
  for (const feature of FEATURES) visit(feature, []);
  return ordered;
}
