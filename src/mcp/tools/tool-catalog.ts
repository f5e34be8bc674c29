import { Inject, Injectable } from '@nestjs/common';
import pLimit from 'p-limit';
import * as z from 'zod';
import type { Scope } from '../../platform/catalog/scopes.js';
import type { Page, PageRequest } from '../../platform/pagination/page.js';
import { type Area, type AreaSummary, pluralLabel, type ReadResource } from '../../platform/resources/read-resource.js';
import { MAX_SEARCH_WORDS, ResourceReader } from '../../platform/resources/resource-reader.service.js';
import { DomainException } from '../../platform/errors/domain.exception.js';
import { TenantData } from '../../platform/tenancy/tenant-data.js';
import { rfc3339ToPostgres } from '../../platform/validation/rfc3339.js';
import { itemSchema } from './item-schema.js';
import { countName, countWithinBudget, fitItem, fitPage, leanItem, withoutNulls } from './lean.js';
import { resourceToolName, type ResourceToolVerb, summaryToolName, TOOL_SOURCES, type ToolSources } from '../tool-names.js';

/** Items per page when a call names no `limit`, and the most a call may ask for. */
const DEFAULT_TOOL_LIMIT = 10;
const MAX_TOOL_LIMIT = 50;
/**
 * JSON bytes of items one call answers at most (about 2,200 tokens); a page that would exceed it
 * is cut short, and a record that alone would exceed it has its nested records and longest texts cut (fitItem).
 * With the page's cursor and hint, a result stays within 10,000 bytes.
 */
const RESULT_BUDGET_BYTES = 9_000;
/** What one record may take of it: room is left for the `resource` member a merged result adds, so it is never cut twice. */
const ITEM_BUDGET_BYTES = RESULT_BUDGET_BYTES - 64;

const PAGING_HINT = 'More results: call this tool again with the same arguments and cursor set to next_cursor.';
const CUT = 'Cut to fit the result size: ';
const SHORTENED_HINT = 'Fewer records than asked fit the result size: name only the members you need in fields for more per call.';
/** What was cut, and that no call shows more of one record: an agent would otherwise look for a way to page through it. */
const CUT_END = 'Naming only the members you need in fields leaves them more room; no tool shows more of one record.';
const cutHint = (cut: readonly string[]) => `${CUT}${cut.join('; ')}. ${CUT_END}`;

/** `recent_*` without `since` looks back this far. */
const DEFAULT_RECENT_DAYS = 7;
/** Kinds of record a merged search or recent-changes call reads at once (each on a connection of the pool). */
const MERGE_FAN_OUT = 2;

/** One tool: its public description and how to run it for one company. */
export interface AgentTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly input: z.ZodObject;
  readonly output: z.ZodObject;
  /** Read scopes whose permissions the token's person must hold. */
  readonly scopes: readonly Scope[];
  /** The area it reads, for toolsets (X-MCP-Toolsets). */
  readonly area: Area;
  readonly run: (tenantId: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;
}

const limit = z
  .number()
  .int()
  .min(1)
  .max(MAX_TOOL_LIMIT)
  .optional()
  .describe(`How many records to return (1-${MAX_TOOL_LIMIT}, default ${DEFAULT_TOOL_LIMIT}).`);
const cursor = z.string().min(1).max(1000).optional().describe('The next_cursor of the previous call, with the same other arguments, to get the following records.');
const fieldsOf = (description: string) => z.array(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/)).min(1).max(40).optional().describe(description);
/** `fields` of the page tools, whose items count their nested records. */
const fields = fieldsOf('Members to return besides id (default: all, with nested records counted: line_count). Name lines to get them.');
/** `fields` of the get tools, whose record holds its nested records. */
const recordFields = fieldsOf('Members to return besides id (default: all, nested records included). line_count counts lines without them.');
/** A search text: every word must appear, so one past the reader's bound is refused, not dropped. */
const query = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((text) => text.split(/\s+/).length <= MAX_SEARCH_WORDS, `At most ${MAX_SEARCH_WORDS} words.`);
// Read as the REST API reads `since` (rfc3339ToPostgres): to the microsecond, `t` and `z` in any case.
const since = z
  .string()
  .refine((text) => rfc3339ToPostgres(text) !== undefined, 'An RFC 3339 date-time with a time zone, e.g. 2026-05-01T00:00:00Z.')
  .meta({ format: 'date-time' })
  .optional()
  .describe(`RFC 3339 date-time, e.g. 2026-05-01T00:00:00Z (default: ${DEFAULT_RECENT_DAYS} days ago).`);

/** A record as the generic tools answer it: its members depend on the resource. */
const anyRecord = z.looseObject({ id: z.string(), resource: z.string().optional() });
const pageOf = (item: z.ZodType) =>
  z.object({
    data: z.array(item),
    next_cursor: z.string().optional().describe('Present when there are more records: pass it as `cursor` with the same other arguments.'),
    hint: z.string().optional(),
  });

/** The members of `item` that are arrays of records (an invoice's `lines`). */
function recordLists(item: z.ZodObject): string[] {
  return Object.entries(item.shape).flatMap(([name, member]) => {
    const inner = member instanceof z.ZodOptional ? member.unwrap() : member;
    return inner instanceof z.ZodArray && inner.element instanceof z.ZodObject ? [name] : [];
  });
}

/** `item` with an optional count member beside each of its arrays of records (`lines` → `line_count`), described by `describe`. */
function withCounts(item: z.ZodObject, describe: (name: string) => string): z.ZodObject {
  return item.extend(Object.fromEntries(recordLists(item).map((name) => [countName(name), z.number().int().optional().describe(describe(name))])));
}

/** A record cut down to `fields`: its id, the members named, and the count of each list named. */
function onlyFields(item: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(item).filter(([name]) => name === 'id' || fields.includes(name) || fields.some((field) => countName(field) === name)),
  );
}

/** A list item's schema: nested records may be replaced by their count (leanItem). */
const listItem = (item: z.ZodObject) => withCounts(item, (name) => `How many ${name}; name ${name} in fields to get them.`);

/** A record's schema as `get_` answers it: nested records may be cut to fit the result (fitItem), with their count and a hint. */
const cutItem = (item: z.ZodObject) =>
  withCounts(item, (name) => `How many ${name} the record has, when ${name} holds only the first of them.`).extend({
    hint: z.string().optional().describe('Present when nested records were cut to fit the result.'),
  });

/** Ranks a search hit: a member equal to the query, then one starting with it, then any. */
function rank(item: Record<string, unknown>, columns: readonly string[], query: string): number {
  const wanted = query.trim().toLowerCase();
  let best = 1;
  for (const column of columns) {
    const value = item[column];
    if (typeof value !== 'string') continue;
    const text = value.toLowerCase();
    if (text === wanted) return 3;
    if (text.startsWith(wanted)) best = 2;
  }
  return best;
}

/**
 * The agent-tool server's tools, derived from the resource registry, in two forms:
 *
 * - **Resource tools**, per resource `list_`, `get_`, `search_` and `recent_<resource>`, and
 *   `summarise_<area>`: what a token grants (`mcp-token:create --tools`), each with the
 *   resource's exact output schema. Listed only when a connection asks for them by name
 *   (`X-MCP-Tools`); callable by name whenever the token grants them.
 * - **Compact tools**, listed by default: `list_records`, `get_record`, `search_records`,
 *   `recent_changes` and `summarise`, whose `resource` (or `area`) argument is an enum of what
 *   the caller may read. A call is allowed exactly when the resource tool it stands for is.
 *
 * The order is fixed, so `tools/list` answers the same list every time.
 */
@Injectable()
export class ToolCatalog {
  /** Every resource tool, in registry order, then the summaries. */
  readonly resourceTools: readonly AgentTool[];
  private readonly byName: ReadonlyMap<string, AgentTool>;
  private readonly resources: readonly ReadResource<any, any>[];
  private readonly summaries: readonly AreaSummary[];
  /** Per resource: the members its items have, and the counts of their nested records (`line_count`), for `fields`. */
  private readonly members: ReadonlyMap<string, ReadonlySet<string>>;

  constructor(
    @Inject(TOOL_SOURCES) sources: ToolSources,
    @Inject(ResourceReader) private readonly reader: ResourceReader,
    @Inject(TenantData) private readonly data: TenantData,
  ) {
    this.resources = sources.resources;
    // `summarise` picks one by its area: a second would silently answer for the first.
    const twice = repeated(sources.summaries, (summary) => summary.area);
    if (twice) throw new Error(`Two features summarise the area ${twice.area}: one summary per area, declared by the feature of that name (docs/architecture.md)`);
    // `summarise` describes every area's members in one schema: one name must mean one thing.
    const members = sources.summaries.flatMap((summary) => Object.keys((summary.output as z.ZodObject).shape).map((name) => ({ name, area: summary.area })));
    const shared = repeated(members, (member) => member.name);
    if (shared) throw new Error(`Two summaries have a member ${shared.name} (${shared.area} and another): name each area's members apart (docs/architecture.md)`);
    this.summaries = sources.summaries;
    this.members = new Map(
      sources.resources.map((resource) => {
        const item = itemSchema(resource.item);
        return [resource.name, new Set([...Object.keys(item.shape), ...recordLists(item).map(countName)])];
      }),
    );
    this.resourceTools = [...sources.resources.flatMap((resource) => this.resourceToolsOf(resource)), ...sources.summaries.map((summary) => this.summaryTool(summary))];
    this.byName = new Map(this.resourceTools.map((tool) => [tool.name, tool]));
  }

  /** A resource tool by name. */
  resourceTool(name: string): AgentTool | undefined {
    return this.byName.get(name);
  }

  /**
   * The compact tools over the resource tools `usable` allows, each left out when it would
   * cover nothing. Built per request: the enums are the caller's.
   */
  compactTools(usable: (tool: AgentTool) => boolean): AgentTool[] {
    const readable = (verb: ResourceToolVerb) => this.resources.filter((resource) => usable(this.byName.get(resourceToolName(verb, resource.name))!));
    const tools: AgentTool[] = [];
    const listable = readable('list');
    if (listable.length > 0) tools.push(this.listRecords(listable));
    const gettable = readable('get');
    if (gettable.length > 0) tools.push(this.getRecord(gettable));
    const searchable = readable('search');
    if (searchable.length > 0) tools.push(this.searchRecords(searchable));
    const recent = readable('recent');
    if (recent.length > 0) tools.push(this.recentChanges(recent));
    const areas = this.summaries.filter((summary) => usable(this.byName.get(summaryToolName(summary.area))!));
    if (areas.length > 0) tools.push(this.summarise(areas));
    return tools;
  }

  private resourceToolsOf(resource: ReadResource<any, any>): AgentTool[] {
    const plural = pluralLabel(resource);
    const item = itemSchema(resource.item);
    const common = { scopes: [resource.scope], area: resource.area, output: pageOf(listItem(item)) };
    const searched = resource.searchable.join(', ');
    const lists = recordLists(item);
    // Page tools count nested records (leanItem); the resource's description may name them.
    const counted = lists.length === 0 ? '' : ` Each item counts its ${lists.join(', ')} (${lists.map(countName).join(', ')}) unless fields names them.`;
    return [
      {
        ...common,
        name: resourceToolName('list', resource.name),
        title: `List ${plural}`,
        description: `Lists the company's ${plural}, newest first. ${resource.description}${counted}`,
        input: z.object({ limit, cursor, fields }).strict(),
        run: (tenantId, args) => this.page(resource, args, this.fetcher('list', resource, tenantId, args), tenantId),
      },
      {
        ...common,
        name: resourceToolName('get', resource.name),
        title: `Get ${resource.article} ${resource.singular}`,
        description: `Gets one ${resource.singular} by its id, nested records included. ${resource.description}`,
        input: z.object({ id: z.guid().describe(`The ${resource.singular}'s id.`), fields: recordFields }).strict(),
        output: cutItem(item),
        run: (tenantId, args) => this.get(resource, tenantId, args),
      },
      {
        ...common,
        name: resourceToolName('search', resource.name),
        title: `Search ${plural}`,
        description: `Finds ${plural} whose ${searched} contain every word of the query (case-insensitive), newest first.${counted}`,
        input: z.object({ query: query.describe(`Up to ${MAX_SEARCH_WORDS} words to look for in ${searched}.`), limit, cursor, fields }).strict(),
        run: (tenantId, args) => this.page(resource, args, this.fetcher('search', resource, tenantId, args), tenantId),
      },
      {
        ...common,
        name: resourceToolName('recent', resource.name),
        title: `Recent ${resource.singular} changes`,
        description: `Lists ${plural} created or changed since a time, most recently changed first.${counted}`,
        input: z.object({ since, limit, cursor, fields }).strict(),
        run: (tenantId, args) => this.page(resource, args, this.fetcher('recent', resource, tenantId, args), tenantId),
      },
    ];
  }

  private summaryTool(summary: AreaSummary): AgentTool {
    return {
      name: summaryToolName(summary.area),
      title: summary.title,
      description: summary.description,
      input: z.object({}).strict(),
      output: summary.output as z.ZodObject,
      scopes: summary.scopes,
      area: summary.area,
      run: async (tenantId) => {
        const answer = (await summary.compute(this.data.forTenant(tenantId))) as Record<string, unknown>;
        // A summary is bounded by what it groups (statuses, currencies, the top MIME types); one
        // grouping by an open-ended member would put megabytes into an agent's context.
        const bytes = Buffer.byteLength(JSON.stringify(answer));
        if (bytes > RESULT_BUDGET_BYTES) throw new Error(`The ${summary.area} summary is ${bytes} bytes, over a tool answer's ${RESULT_BUDGET_BYTES}: it must group by bounded members`);
        return answer;
      },
    };
  }

  private listRecords(resources: readonly ReadResource<any, any>[]): AgentTool {
    return {
      ...this.compactCommon(resources),
      name: 'list_records',
      title: 'List records',
      description: 'Lists one kind of record, newest first, 10 at a time (follow next_cursor).',
      input: z.object({ resource: resourceEnum(resources), limit, cursor, fields }).strict(),
      output: pageOf(anyRecord),
      run: (tenantId, args) => this.byName.get(resourceToolName('list', args.resource as string))!.run(tenantId, args),
    };
  }

  private getRecord(resources: readonly ReadResource<any, any>[]): AgentTool {
    return {
      ...this.compactCommon(resources),
      name: 'get_record',
      title: 'Get a record',
      description: "Gets one record by its id (from another result, or another record's *_id member), nested records included.",
      input: z.object({ resource: resourceEnum(resources), id: z.guid().describe("The record's id."), fields: recordFields }).strict(),
      output: anyRecord,
      run: (tenantId, args) => this.byName.get(resourceToolName('get', args.resource as string))!.run(tenantId, args),
    };
  }

  private searchRecords(resources: readonly ReadResource<any, any>[]): AgentTool {
    return {
      ...this.compactCommon(resources),
      name: 'search_records',
      title: 'Search records',
      // What each kind is searched on, from its declaration: a status, a customer or a date is not.
      description:
        `Finds records whose searched members contain every word of the query: ${resources.map((resource) => `${resource.name} (${resource.searchable.join(', ')})`).join(', ')}. ` +
        'Searches all kinds (or those in resources) among the newest matches of each, and ranks exact matches first. Each item names its resource.',
      input: z
        .object({
          query: query.describe(`Up to ${MAX_SEARCH_WORDS} words to look for.`),
          resources: z.array(resourceEnum(resources)).min(1).max(resources.length).optional().describe('Kinds of record to search (default: all).'),
          limit,
          cursor: cursor.describe('With exactly one resource: the next_cursor of the previous call.'),
          fields,
        })
        .strict(),
      output: pageOf(anyRecord),
      run: (tenantId, args) => this.merged('search', resources, tenantId, args, (item, resource) => rank(item, resource.searchable, args.query as string)),
    };
  }

  private recentChanges(resources: readonly ReadResource<any, any>[]): AgentTool {
    return {
      ...this.compactCommon(resources),
      name: 'recent_changes',
      title: 'Recent changes',
      description: `Records created or changed since a time (default ${DEFAULT_RECENT_DAYS} days ago), most recent first, across all kinds or those in resources: for "what changed" questions. Each item names its resource.`,
      input: z
        .object({
          resources: z.array(resourceEnum(resources)).min(1).max(resources.length).optional().describe('Kinds of record to include (default: all).'),
          since,
          limit,
          cursor: cursor.describe('With exactly one resource: the next_cursor of the previous call.'),
          fields,
        })
        .strict(),
      output: pageOf(anyRecord),
      run: (tenantId, args) => this.merged('recent', resources, tenantId, args, () => 0),
    };
  }

  private summarise(areas: readonly AreaSummary[]): AgentTool {
    return {
      name: 'summarise',
      title: 'Summarise an area',
      description: 'Totals and counts of one business area (open and overdue invoices, vehicles by status and open work orders, pending leave and timesheets, open tickets, documents): start here for overview questions.',
      input: z.object({ area: z.enum(areas.map((summary) => summary.area) as [Area, ...Area[]]).describe('The business area.') }).strict(),
      // Every area's members, each present only in its area's answer: their descriptions say how to
      // read them ("never add amounts of different currencies"), which the per-area tools alone held.
      output: z.looseObject(
        Object.fromEntries(areas.flatMap((summary) => Object.entries((summary.output as z.ZodObject).shape).map(([name, member]) => [name, (member as z.ZodType).optional()]))),
      ),
      scopes: [...new Set(areas.flatMap((summary) => summary.scopes))],
      area: areas[0].area,
      run: (tenantId, args) => this.byName.get(summaryToolName(args.area as string))!.run(tenantId, args),
    };
  }

  private compactCommon(resources: readonly ReadResource<any, any>[]): Pick<AgentTool, 'scopes' | 'area'> {
    return { scopes: [...new Set(resources.map((resource) => resource.scope))], area: resources[0].area };
  }

  private async get(resource: ReadResource<any, any>, tenantId: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const wanted = this.fieldsOf(resource, args);
    const item = withoutNulls(await this.reader.get(resource, tenantId, args.id as string)) as Record<string, unknown>;
    const counts = Object.entries(item).flatMap(([name, value]) => (Array.isArray(value) && wanted?.includes(countName(name)) ? [[countName(name), value.length]] : []));
    const chosen = wanted ? { ...onlyFields(item, wanted), ...Object.fromEntries(counts) } : item;
    const fitted = fitItem(chosen, ITEM_BUDGET_BYTES);
    return fitted.cut.length === 0 ? fitted.item : { ...fitted.item, hint: cutHint(fitted.cut) };
  }

  /** The `fields` argument, checked against the resource's members. */
  private fieldsOf(resource: ReadResource<any, any>, args: Record<string, unknown>): string[] | undefined {
    const wanted = args.fields as string[] | undefined;
    const unknown = wanted?.filter((name) => !this.members.get(resource.name)!.has(name)) ?? [];
    if (unknown.length > 0) {
      // The compact tools' output schemas are open, so the answer is where an agent learns the members.
      const known = [...this.members.get(resource.name)!].join(', ');
      throw new DomainException('InvalidInput', `${resource.name} have no member ${unknown.join(', ')}; their members: ${known}.`, { field: 'fields', code: 'invalid_format' });
    }
    return wanted;
  }

  /** How a page tool reads one page of a resource. */
  private fetcher(verb: 'list' | 'search' | 'recent', resource: ReadResource<any, any>, tenantId: string, args: Record<string, unknown>) {
    return (page: PageRequest): Promise<Page<object>> => {
      if (verb === 'search') return this.reader.search(resource, tenantId, args.query as string, page);
      if (verb === 'recent') return this.reader.recent(resource, tenantId, sinceOf(args), page);
      return this.reader.list(resource, tenantId, page);
    };
  }

  /**
   * One page of lean items within the byte budget: a page that would exceed it is fetched again
   * with fewer items, so its next_cursor continues right after the last item shown. The hint
   * names no tool: a compact tool answers the page of the resource tool it stands for.
   */
  private async page(
    resource: ReadResource<any, any>,
    args: Record<string, unknown>,
    fetch: (page: PageRequest) => Promise<Page<object>>,
    tenantId: string,
  ): Promise<Record<string, unknown>> {
    const { shown, nextCursor, cut, shortened } = await this.fittedPage(resource, args, fetch, tenantId);
    return withPageHint(shown, nextCursor, cut, shortened);
  }

  /**
   * The items of a page as shown (`fields` of `args`), fitted to the byte budget as `page` says,
   * and each as `reads` more members show it (`read`, for a merged tool's ranking: the budget is
   * spent on what is shown, not on what is only read). `tagged`: each shown item names its
   * resource first (a merged tool's page), within the budget.
   */
  private async fittedPage(
    resource: ReadResource<any, any>,
    args: Record<string, unknown>,
    fetch: (page: PageRequest) => Promise<Page<object>>,
    tenantId: string,
    { reads = [], tagged = false }: { reads?: readonly string[]; tagged?: boolean } = {},
  ): Promise<{ shown: Record<string, unknown>[]; read: Record<string, unknown>[]; nextCursor?: string; cut: string[]; shortened: boolean }> {
    const wanted = this.fieldsOf(resource, args);
    const readFields = wanted && [...new Set([...wanted, ...reads])].filter((name) => this.members.get(resource.name)!.has(name));
    const cursor = args.cursor as string | undefined;
    // Whose cursors these are (the company, through the agent-tool server), so another company's
    // are refused; and for what query or time, so a cursor of one search does not page another.
    const bound = [boundQuery(args.query), boundSince(args.since)].filter((value) => value !== undefined).map((value) => `\n${value}`);
    const holder = `${tenantId}/mcp${bound.join('')}`;
    const lean = (page: Page<object>) =>
      page.data.map((item) => {
        const kept = leanItem(item as Record<string, unknown>, wanted);
        return tagged ? { resource: resource.name, ...kept } : kept;
      });
    let page = await fetch({ limit: (args.limit as number | undefined) ?? DEFAULT_TOOL_LIMIT, cursor, holder });
    let data = lean(page);
    const fits = countWithinBudget(data, RESULT_BUDGET_BYTES);
    if (fits < data.length) {
      page = await fetch({ limit: fits, cursor, holder });
      data = lean(page);
    }
    const { items, cut } = fitPage(data, ITEM_BUDGET_BYTES);
    const read = reads.length === 0 ? items : page.data.map((item) => leanItem(item as Record<string, unknown>, readFields));
    // Fewer than asked, with more to come: cut short by the budget, or by the reader's own bound on a page's bytes.
    const shortened = items.length < ((args.limit as number | undefined) ?? DEFAULT_TOOL_LIMIT);
    return { shown: items, read, nextCursor: page.next_cursor ?? undefined, cut, shortened };
  }

  /**
   * search_records and recent_changes: with one resource (the only way to page), its tool's page;
   * otherwise the first page of each resource, merged by `score` then most recent, cut to the
   * limit and the byte budget, each item naming its resource.
   */
  private async merged(
    verb: 'search' | 'recent',
    allowed: readonly ReadResource<any, any>[],
    tenantId: string,
    args: Record<string, unknown>,
    score: (item: Record<string, unknown>, resource: ReadResource<any, any>) => number,
  ): Promise<Record<string, unknown>> {
    const names = (args.resources as string[] | undefined) ?? allowed.map((resource) => resource.name);
    const chosen = allowed.filter((resource) => names.includes(resource.name));
    const wanted = args.fields as string[] | undefined;
    const order = verb === 'search' ? 'created_at' : 'updated_at';
    // Ranked on the members the ranking reads (a search's searchable ones, and the time), which
    // `fields` may leave out of what is shown.
    const reads = (resource: ReadResource<any, any>) => (verb === 'search' ? [...resource.searchable, order] : [order]);
    if (chosen.length === 1) {
      const [resource] = chosen;
      const page = await this.fittedPage(resource, args, this.fetcher(verb, resource, tenantId, args), tenantId, { reads: reads(resource), tagged: true });
      // Ranked within the page (its order is the cursor's, so pages stay disjoint and complete).
      const ranked = page.shown
        .map((item, index) => ({ item, score: score(page.read[index], resource), index }))
        .sort((a, b) => b.score - a.score || a.index - b.index)
        .map(({ item }) => item);
      return withPageHint(ranked, page.nextCursor, page.cut, page.shortened);
    }
    if (args.cursor !== undefined) {
      throw new DomainException('InvalidInput', 'cursor pages one kind of record: name exactly one in resources.', { field: 'cursor', code: 'invalid_format' });
    }
    const unknown = wanted?.filter((name) => !chosen.some((resource) => this.members.get(resource.name)!.has(name))) ?? [];
    if (unknown.length > 0) {
      throw new DomainException('InvalidInput', `None of ${chosen.map((resource) => resource.name).join(', ')} has a member ${[...new Set(unknown)].join(', ')}.`, {
        field: 'fields',
        code: 'invalid_format',
      });
    }
    const limit = (args.limit as number | undefined) ?? DEFAULT_TOOL_LIMIT;
    // MERGE_FAN_OUT kinds at a time: one call holds that many connections of the pool, not one per kind.
    const oneAtATime = pLimit(MERGE_FAN_OUT);
    const pages = await Promise.all(
      chosen.map((resource) =>
        oneAtATime(async () => {
          // The wanted members this kind has (another kind has the rest), or its id alone.
          const fields = wanted?.filter((name) => this.members.get(resource.name)!.has(name));
          const kindArgs = { ...args, limit, fields: fields && (fields.length > 0 ? fields : ['id']) };
          return { resource, page: await this.fittedPage(resource, kindArgs, this.fetcher(verb, resource, tenantId, args), tenantId, { reads: reads(resource), tagged: true }) };
        }),
      ),
    );
    // Only a kind's page of one record may have cut it to fit (fitPage): said again if it is shown.
    const hits = pages.flatMap(({ resource, page }) => {
      const cut = page.shown.length === 1 ? page.cut : [];
      return page.shown.map((item, index) => ({ item, score: score(page.read[index], resource), at: String(page.read[index][order] ?? ''), cut }));
    });
    // A kind whose page the budget cut short left out records newer than other kinds' older ones:
    // the merge stops at the last record such a page read, so nothing shown is older than a record left out.
    const horizon = pages
      .filter(({ page }) => page.shortened && page.nextCursor !== undefined)
      .map(({ page }) => String(page.read.at(-1)?.[order] ?? ''))
      .sort()
      .at(-1);
    const ranked = (horizon === undefined ? hits : hits.filter((hit) => hit.at.localeCompare(horizon) >= 0)).sort(
      (a, b) => b.score - a.score || b.at.localeCompare(a.at),
    );
    const data = ranked.slice(0, limit).map((hit) => hit.item);
    const fitted = fitPage(data.slice(0, countWithinBudget(data, RESULT_BUDGET_BYTES)), RESULT_BUDGET_BYTES);
    const shown = fitted.items;
    const more = pages.some(({ page }) => page.nextCursor !== undefined);
    // Each shown record's cuts, naming the record when it is not the only one shown.
    const cuts = [
      ...ranked.slice(0, shown.length).flatMap(({ item, cut }) => (shown.length === 1 ? cut : cut.map((what) => `${item.resource} ${item.id}: ${what}`))),
      ...fitted.cut,
    ];
    const hints = [
      ...(cuts.length > 0 ? [cutHint(cuts)] : []),
      // Most recent first: what was left out is older, so only paging one kind reaches it.
      ...(shown.length < hits.length || more ? [`More results: ${verb === 'search' ? 'narrow the query, or ' : ''}name one resource in resources and page with next_cursor.`] : []),
    ];
    return hints.length === 0 ? { data: shown } : { data: shown, hint: hints.join(' ') };
  }
}

/**
 * A page tool's result: its items, its next_cursor, and a hint naming what was cut and how to go
 * on. `shortened`: fewer items than asked came, which naming fewer members in `fields` would spare.
 */
function withPageHint(data: Record<string, unknown>[], nextCursor: string | undefined, cut: readonly string[], shortened: boolean): Record<string, unknown> {
  const hint = [...(cut.length > 0 ? [cutHint(cut)] : []), ...(nextCursor ? [PAGING_HINT] : []), ...(nextCursor && shortened ? [SHORTENED_HINT] : [])].join(' ');
  return { data, ...(nextCursor ? { next_cursor: nextCursor } : {}), ...(hint ? { hint } : {}) };
}

/** The first item whose key an earlier item has. */
function repeated<T>(items: readonly T[], key: (item: T) => string): T | undefined {
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(key(item))) return item;
    seen.add(key(item));
  }
  return undefined;
}

/** A query as the search reads it (its words, in any case and spacing), so that another spelling of it pages on with its cursor. */
function boundQuery(query: unknown): string | undefined {
  return typeof query === 'string' ? JSON.stringify(query.trim().split(/\s+/).map((word) => word.toLowerCase())) : undefined;
}

/** A time as the instant it names, to the microsecond (`…00Z` and `…00.000Z` are one). */
function boundSince(since: unknown): string | undefined {
  if (typeof since !== 'string') return undefined;
  return rfc3339ToPostgres(since) ?? JSON.stringify(since);
}

function resourceEnum(resources: readonly ReadResource<any, any>[]) {
  return z.enum(resources.map((resource) => resource.name) as [string, ...string[]]).describe('The kind of record.');
}

/**
 * The time `recent` reads from, as PostgreSQL's text to the microsecond: a Date keeps
 * milliseconds only, so `…28.647535Z` listed a record changed at `…28.647534`.
 */
function sinceOf(args: Record<string, unknown>): string {
  return args.since === undefined ? new Date(Date.now() - DEFAULT_RECENT_DAYS * 86_400_000).toISOString() : rfc3339ToPostgres(args.since)!;
}
