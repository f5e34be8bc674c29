import type { AreaSummary, ReadResource } from '../platform/resources/read-resource.js';

/** The registry the tools are derived from, supplied by the composition (src/app; src/cli for the names a token may grant). */
export const TOOL_SOURCES = Symbol('TOOL_SOURCES');
export interface ToolSources {
  // `any`: each resource has its own entity and DTO types; the declarations themselves are typed.
  readonly resources: readonly ReadResource<any, any>[];
  readonly summaries: readonly AreaSummary[];
}

/** The compact tools, what an agent lists by default, each with the prefix of the resource or summary tools it stands for. */
const COMPACT_TOOLS = { list_records: 'list_', get_record: 'get_', search_records: 'search_', recent_changes: 'recent_', summarise: 'summarise_' } as const;
export const COMPACT_TOOL_NAMES: readonly string[] = Object.keys(COMPACT_TOOLS);

/** The tools of `grantable` a compact tool stands for (`list_records`: every `list_<resource>`); undefined for another name. */
export function toolsStoodFor(name: string, grantable: readonly string[]): string[] | undefined {
  // Own members only: `constructor` or `toString` would otherwise find Object's and stand for no tool.
  if (!Object.hasOwn(COMPACT_TOOLS, name)) return undefined;
  const prefix = COMPACT_TOOLS[name as keyof typeof COMPACT_TOOLS];
  return grantable.filter((tool) => tool.startsWith(prefix));
}

/** The verbs of a resource's own tools, in the order they are listed. */
const RESOURCE_TOOL_VERBS = ['list', 'get', 'search', 'recent'] as const;
export type ResourceToolVerb = (typeof RESOURCE_TOOL_VERBS)[number];

export const resourceToolName = (verb: ResourceToolVerb, resource: string): string => `${verb}_${resource}`;
export const summaryToolName = (area: string): string => `summarise_${area}`;

/** The tools a token may grant (`mcp-token:create --tools`), in catalogue order: each resource's, then each area's summary. */
export function grantableToolNames(sources: ToolSources): string[] {
  return [
    ...sources.resources.flatMap((resource) => RESOURCE_TOOL_VERBS.map((verb) => resourceToolName(verb, resource.name))),
    ...sources.summaries.map((summary) => summaryToolName(summary.area)),
  ];
}
