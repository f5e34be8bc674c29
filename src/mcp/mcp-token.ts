import { hashSecret, randomPrefixAndSecret } from '../platform/auth/api-key-token.js';
import { DomainException } from '../platform/errors/domain.exception.js';
import { COMPACT_TOOL_NAMES, toolsStoodFor } from './tool-names.js';

/**
 * Agent-tool server tokens read `oht_<prefix>_<secret>` (12 lower-case letters or digits, then
 * 43 letters or digits), built like API keys: the prefix finds the row, only the SHA-256 of
 * the secret is stored. The distinct `oht_` scheme lets each server refuse the other's tokens.
 */
const TOKEN = /^oht_([a-z0-9]{12})_([A-Za-z0-9]{43})$/;

/** `*` grants every tool; otherwise tool names as the tool server lists them. */
const ALL_TOOLS = '*';

export function generateMcpToken(): { token: string; prefix: string; secretHash: Buffer } {
  const { prefix, secret } = randomPrefixAndSecret();
  return { token: `oht_${prefix}_${secret}`, prefix, secretHash: hashSecret(secret) };
}

export function parseMcpToken(token: string): { prefix: string; secret: string } | null {
  const match = TOKEN.exec(token);
  return match ? { prefix: match[1], secret: match[2] } : null;
}

/**
 * The tool list a token is issued for, de-duplicated. Every name must be one of `grantable`
 * (the tools the server has: `list_invoices`, `summarise_finance`, …) or a compact tool's, which
 * `tools/list` shows: `list_records` is stored as every `list_<resource>` it stands for (then
 * listed as `list_records` again), so a token made from what an agent lists grants what it
 * listed. A typo is refused when the token is made rather than leaving an agent with no tools.
 */
export function normaliseTools(tools: readonly string[], grantable: readonly string[]): string[] {
  const unique = [...new Set(tools)];
  if (unique.length === 0) throw invalidTools('at least one tool (or * for all) is required');
  if (unique.includes(ALL_TOOLS)) {
    if (unique.length > 1) throw invalidTools('* grants every tool and cannot be combined with tool names');
    return unique;
  }
  const unknown = unique.filter((tool) => !grantable.includes(tool) && toolsStoodFor(tool, grantable) === undefined);
  if (unknown.length > 0) throw invalidTools(`unknown tools: ${unknown.join(', ')}; the tools are ${[...COMPACT_TOOL_NAMES, ...grantable].join(', ')}`);
  return [...new Set(unique.flatMap((tool) => toolsStoodFor(tool, grantable) ?? [tool]))];
}

const invalidTools = (message: string) => new DomainException('InvalidInput', message, { field: 'tools' });
