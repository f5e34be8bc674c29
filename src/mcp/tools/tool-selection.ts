import { AREAS, type Area } from '../../platform/resources/read-resource.js';

/** What one connection asked to see, by header, within what its token allows. */
export interface ToolSelection {
  /** `X-MCP-Toolsets: finance,hr`: only these areas' tools; null for every area. */
  readonly toolsets: ReadonlySet<Area> | null;
  /** `X-MCP-Tools: get_invoices,search_records`: exactly these tools are listed and callable; null for the compact set. */
  readonly tools: readonly string[] | null;
}

export const TOOLSETS_HEADER = 'x-mcp-toolsets';
export const TOOLS_HEADER = 'x-mcp-tools';
/** Every area: GitHub's MCP server spells it so. */
const ALL_TOOLSETS = 'all';

/** A header naming a toolset or tool that does not exist: a JSON-RPC invalid-params error, never an empty list. */
export class ToolSelectionRefused extends Error {
  constructor(
    message: string,
    readonly data: { header: string; unknown: string[]; known: readonly string[] },
  ) {
    super(message);
  }
}

const names = (value: string | undefined): string[] | null => {
  if (value === undefined) return null;
  return [...new Set(value.split(',').map((name) => name.trim()).filter((name) => name !== ''))];
};

/** The selection the headers make; `isTool` says whether a name is a tool of this server. */
export function toolSelection(headers: { toolsets?: string; tools?: string }, isTool: (name: string) => boolean, toolNames: () => readonly string[]): ToolSelection {
  const toolsets = names(headers.toolsets);
  const known = [...AREAS, ALL_TOOLSETS];
  const unknownSets = toolsets?.filter((name) => !known.includes(name)) ?? [];
  if (unknownSets.length > 0) {
    throw new ToolSelectionRefused(`Unknown toolset ${unknownSets.join(', ')} in X-MCP-Toolsets; toolsets: ${known.join(', ')}.`, {
      header: 'X-MCP-Toolsets',
      unknown: unknownSets,
      known,
    });
  }
  const tools = names(headers.tools);
  const unknownTools = tools?.filter((name) => !isTool(name)) ?? [];
  if (unknownTools.length > 0) {
    throw new ToolSelectionRefused(`Unknown tool ${unknownTools.join(', ')} in X-MCP-Tools.`, { header: 'X-MCP-Tools', unknown: unknownTools, known: toolNames() });
  }
  return {
    toolsets: toolsets === null || toolsets.length === 0 || toolsets.includes(ALL_TOOLSETS) ? null : new Set(toolsets as Area[]),
    tools: tools === null || tools.length === 0 ? null : tools,
  };
}
