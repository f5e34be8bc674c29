import { parseApiKey, secretMatches } from '../platform/auth/api-key-token.js';
import { generateMcpToken, normaliseTools, parseMcpToken } from './mcp-token.js';

describe('MCP tokens', () => {
  it('generates oht_<prefix>_<secret> whose secret matches the stored hash', () => {
    const { token, prefix, secretHash } = generateMcpToken();
    expect(token).toMatch(/^oht_[a-z0-9]{12}_[A-Za-z0-9]{43}$/);
    const parsed = parseMcpToken(token)!;
    expect(parsed.prefix).toBe(prefix);
    expect(secretMatches(parsed.secret, secretHash)).toBe(true);
  });

  it('is never an API key and never the same twice', () => {
    const tokens = Array.from({ length: 100 }, () => generateMcpToken().token);
    expect(new Set(tokens).size).toBe(100);
    for (const token of tokens) expect(parseApiKey(token)).toBeNull();
  });

  it.each(['', 'oht_', `oh_live_abcdefghijkl_${'a'.repeat(43)}`, `oht_ABCDEFGHIJKL_${'a'.repeat(43)}`, `oht_abcdefghijkl_${'a'.repeat(42)}`])(
    'refuses %p',
    (token) => expect(parseMcpToken(token)).toBeNull(),
  );
});

describe('normaliseTools', () => {
  const grantable = ['list_invoices', 'get_vehicles', 'summarise_finance'];

  it('keeps * alone and de-duplicates names', () => {
    expect(normaliseTools(['*'], grantable)).toEqual(['*']);
    expect(normaliseTools(['list_invoices', 'get_vehicles', 'list_invoices'], grantable)).toEqual(['list_invoices', 'get_vehicles']);
  });

  it('refuses a name that is no tool, naming it and the tools there are', () => {
    expect(() => normaliseTools(['list_invoice', 'get_vehicles', 'list_record'], grantable)).toThrow(
      'unknown tools: list_invoice, list_record; the tools are list_records, get_record, search_records, recent_changes, summarise, list_invoices, get_vehicles, summarise_finance',
    );
  });

  it('grants a compact tool as the tools it stands for, once each', () => {
    const many = ['list_invoices', 'list_vehicles', 'get_invoices', 'get_vehicles', 'summarise_finance', 'summarise_fleet'];
    expect(normaliseTools(['list_records'], many)).toEqual(['list_invoices', 'list_vehicles']);
    expect(normaliseTools(['get_vehicles', 'get_record', 'summarise'], many)).toEqual(['get_vehicles', 'get_invoices', 'summarise_finance', 'summarise_fleet']);
  });

  it("refuses the names of an object's inherited members as no tool", () => {
    expect(() => normaliseTools(['list_invoices', 'constructor', 'toString', '__proto__'], grantable)).toThrow('unknown tools: constructor, toString, __proto__;');
  });

  it.each([[[]], [['*', 'list_invoices']], [['Invoices']], [['list invoices']], [['-x']]])('refuses %j', (tools) => {
    expect(() => normaliseTools(tools, grantable)).toThrow();
  });
});
