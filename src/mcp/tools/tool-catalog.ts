import { Inject, Injectable } from '@nestjs/common';
import * as z from 'zod';
import type { Scope } from '../../platform/catalog/scopes.js';
import type { Page, PageRequest } from '../../platform/pagination/page.js';
import { type AreaSummary, pluralLabel, type ReadResource } from '../../platform/resources/read-resource.js';
import { ResourceReader } from '../../platform/resources/resource-reader.service.js';
import { TenantData } from '../../platform/tenancy/tenant-data.js';
import { itemSchema } from './item-schema.js';
import { countWithinBudget, withoutNulls } from './lean.js';

/** The registry the tools are derived from, supplied by the composition (src/app). */
export const TOOL_SOURCES = Symbol('TOOL_SOURCES');
export interface ToolSources {
  readonly resources: readonly ReadResource<any, any>[];
  readonly summaries: readonly AreaSummary[];
}

/** Items per page when a call names no `limit`, and the most a call may ask for. */
export const DEFAULT_TOOL_LIMIT = 20;
export const MAX_TOOL_LIMIT = 50;
/** JSON bytes of items one call answers at most (about 12k tokens); a page that would exceed it is cut short. */
export const RESULT_BUDGET_BYTES = 48_000;
/** `recent_*` without `since` looks back this far. */
export const DEFAULT_RECENT_DAYS = 7;

/** One tool: its public description and how to run it for one company. */
export interface AgentTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: z.ZodObject;
  readonly output: z.ZodObject;
  /** Read scopes whose permissions the token's person must hold. */
  readonly scopes: readonly Scope[];
  readonly run: (tenantId: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;
}

const limit = z
  .number()
  .int()
  .min(1)
  .max(MAX_TOOL_LIMIT)
  .optional()
  .describe(`How many records to return (1-${MAX_TOOL_LIMIT}, default ${DEFAULT_TOOL_LIMIT}).`);
const cursor = z.string().min(1).max(1000).optional().describe('The next_cursor of the previous call of this same tool, to get the following records.');

/**
 * Every tool of the agent-tool server, derived from the resource registry: per resource
 * `list_`, `get_`, `search_` and `recent_`, then one `summarise_<area>` per area. The order is
 * fixed, so `tools/list` answers the same list every time.
 */
@Injectable()
export class ToolCatalog {
  readonly tools: readonly AgentTool[];

  constructor(
    @Inject(TOOL_SOURCES) sources: ToolSources,
    @Inject(ResourceReader) private readonly reader: ResourceReader,
    @Inject(TenantData) private readonly data: TenantData,
  ) {
    this.tools = [...sources.resources.flatMap((resource) => this.resourceTools(resource)), ...sources.summaries.map((summary) => this.summaryTool(summary))];
  }

  private resourceTools(resource: ReadResource<any, any>): AgentTool[] {
    const plural = pluralLabel(resource);
    const item = itemSchema(resource.item);
    const pageOutput = z.object({
      data: z.array(item),
      next_cursor: z.string().optional().describe('Present when there are more records: pass it as `cursor` to the same tool.'),
      hint: z.string().optional(),
    });
    const pageOf = (tool: string, tenantId: string, fetch: (page: PageRequest) => Promise<Page<object>>) => (args: Record<string, unknown>) =>
      this.cappedPage(tool, fetch, { limit: args.limit as number | undefined, cursor: args.cursor as string | undefined, holder: `${tenantId}/mcp` });
    const common = { scopes: [resource.scope], output: pageOutput };
    const searched = resource.searchable.join(', ');
    return [
      {
        ...common,
        name: `list_${resource.name}`,
        title: `List ${plural}`,
        description: `Lists the company's ${plural}, newest first. ${resource.description} Null fields are left out. When the answer has next_cursor, more exist: call again with cursor=next_cursor.`,
        input: z.object({ limit, cursor }).strict(),
        run: (tenantId, args) => pageOf(`list_${resource.name}`, tenantId, (page) => this.reader.list(resource, tenantId, page))(args),
      },
      {
        ...common,
        name: `get_${resource.name}`,
        title: `Get ${resource.article} ${resource.singular}`,
        description: `Gets one ${resource.singular} by its id (a UUID, as found in list_, search_ or recent_ results or in another record's *_id field). ${resource.description}`,
        input: z.object({ id: z.guid().describe(`The ${resource.singular}'s id.`) }).strict(),
        output: item,
        run: async (tenantId, args) => withoutNulls(await this.reader.get(resource, tenantId, args.id as string)) as Record<string, unknown>,
      },
      {
        ...common,
        name: `search_${resource.name}`,
        title: `Search ${plural}`,
        description: `Finds ${plural} by text: every word of the query must appear in ${searched} (case-insensitive, part of a word is enough), newest first. ${resource.description}`,
        input: z
          .object({ query: z.string().trim().min(1).max(200).describe(`Words to look for in ${searched}.`), limit, cursor })
          .strict(),
        run: (tenantId, args) =>
          pageOf(`search_${resource.name}`, tenantId, (page) => this.reader.search(resource, tenantId, args.query as string, page))(args),
      },
      {
        ...common,
        name: `recent_${resource.name}`,
        title: `Recent ${resource.singular} changes`,
        description: `Lists ${plural} created or changed since a point in time, most recently changed first: use it for "what changed" questions. Without since, the last ${DEFAULT_RECENT_DAYS} days.`,
        input: z
          .object({
            since: z.iso.datetime({ offset: true }).optional().describe(`RFC 3339 date-time, e.g. 2026-05-01T00:00:00Z (default: ${DEFAULT_RECENT_DAYS} days ago).`),
            limit,
            cursor,
          })
          .strict(),
        run: (tenantId, args) => {
          const since = args.since === undefined ? new Date(Date.now() - DEFAULT_RECENT_DAYS * 86_400_000) : new Date(args.since as string);
          return pageOf(`recent_${resource.name}`, tenantId, (page) => this.reader.recent(resource, tenantId, since, page))(args);
        },
      },
    ];
  }

  private summaryTool(summary: AreaSummary): AgentTool {
    return {
      name: `summarise_${summary.area}`,
      title: summary.title,
      description: summary.description,
      input: z.object({}).strict(),
      output: summary.output as z.ZodObject,
      scopes: summary.scopes,
      run: async (tenantId) => (await summary.compute(this.data.forTenant(tenantId))) as Record<string, unknown>,
    };
  }

  /**
   * One page, without nulls, within the byte budget: a page that would exceed it is fetched
   * again with fewer items, so its next_cursor continues right after the last item shown.
   */
  private async cappedPage(
    tool: string,
    fetch: (page: PageRequest) => Promise<Page<object>>,
    /** `holder`: whose cursors these are (the company, through the agent-tool server), so another company's are refused. */
    requested: { limit: number | undefined; cursor: string | undefined; holder: string },
  ): Promise<Record<string, unknown>> {
    const { cursor, holder } = requested;
    let page = await fetch({ limit: requested.limit ?? DEFAULT_TOOL_LIMIT, cursor, holder });
    let data = page.data.map(withoutNulls);
    const fits = countWithinBudget(data, RESULT_BUDGET_BYTES);
    if (fits < data.length) {
      page = await fetch({ limit: fits, cursor, holder });
      data = page.data.map(withoutNulls);
    }
    if (!page.next_cursor) return { data };
    return { data, next_cursor: page.next_cursor, hint: `More results: call ${tool} again with the same arguments and cursor set to next_cursor.` };
  }
}
