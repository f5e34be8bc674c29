import fc from 'fast-check';
import { loadAreaSummaries, READ_RESOURCES } from '../src/app/features.js';
import { TOOL_BUSY_TEXT, TOOL_FAILED_TEXT } from '../src/mcp/tool-server.js';
import { COMPACT_TOOL_NAMES, grantableToolNames } from '../src/mcp/tool-names.js';
import { TOOLS_HEADER } from '../src/mcp/tools/tool-selection.js';
import { runCli } from './support/cli.js';
import { fuzzFailure, fuzzSettings, hostileText } from './support/fuzz.js';
import { credentials, shortcut, startMcp, type TestMcp } from './support/mcp.js';

/**
 * Property-based fuzzing of every tool the agent-tool server lists, so tools added later are
 * fuzzed without touching this file. For each tool fast-check builds arguments from its input
 * schema (each member valid, hostile or left out, plus members the schema lacks) and calls it
 * through `/tools/call`: every answer must be a 200 tool result or a 422 problem naming the fault,
 * never a 5xx, nor a tool result saying the tool failed unexpectedly or the service is busy (the
 * tool server's 500 and 503). Fixed seed and bounded runs; `FUZZ_SEED` and `FUZZ_RUNS` override
 * them, and a failure names the seed.
 */
const FUZZ = fuzzSettings({ seed: 20260728, runs: 40 });

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
};

const hostileValue = fc.oneof(
  hostileText,
  fc.constantFrom('\ud800', 0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, true, false, null, [], {}, [null], ['\u0000']),
  fc.jsonValue({ maxDepth: 3 }),
);

const COMMON_MEMBERS = ['id', 'number', 'status', 'name', 'lines', 'line_count', 'currency', 'total_minor', 'created_at', 'updated_at', 'notes', 'title'];

/** A value the schema allows: its type, enum, bounds, pattern and format. */
function validValue(schema: Schema): fc.Arbitrary<unknown> {
  if (schema.enum?.length) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type.find((name) => name !== 'null') : schema.type;
  switch (type) {
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 });
    case 'number':
      return fc.double({ noNaN: true, min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6 });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(schema.items ? validValue(schema.items) : hostileValue, { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) });
    case 'object':
      return fc.dictionary(fc.string({ maxLength: 8 }), hostileValue, { maxKeys: 3 });
    default:
      if (schema.format === 'uuid') return fc.uuid();
      if (schema.format === 'date-time') return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((date) => date.toISOString());
      // Names of members, mostly ones records have, so that a call gets past the check of its fields.
      if (schema.pattern) return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...COMMON_MEMBERS) }, { weight: 1, arbitrary: fc.stringMatching(new RegExp(schema.pattern)) });
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) });
  }
}

/**
 * Arguments of the tool's schema: its required members and some optional ones valid, and at most
 * one fault (a member hostile, or one the schema lacks), so that calls reach past the refusals.
 */
function argumentsFor(schema: Schema): fc.Arbitrary<unknown> {
  const required = new Set(schema.required ?? []);
  const names = Object.keys(schema.properties ?? {});
  const members = names.map((name) => {
    const valid = validValue(schema.properties![name]);
    return required.has(name) ? valid : fc.option(valid, { nil: undefined, freq: 2 });
  });
  const fault = fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.tuple(names.length > 0 ? fc.constantFrom(...names) : fc.string({ maxLength: 8 }), hostileValue) },
    { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 12 }), hostileValue) },
  );
  return fc.oneof(
    {
      weight: 19,
      arbitrary: fc.tuple(fc.tuple(...members), fault).map(([values, faulty]) => {
        const args: Record<string, unknown> = {};
        names.forEach((name, index) => values[index] !== undefined && (args[name] = values[index]));
        if (faulty !== undefined) args[faulty[0]] = faulty[1];
        return args;
      }),
    },
    { weight: 1, arbitrary: hostileValue },
  );
}

describe('agent-tool server fuzzing (e2e): no arguments give a 5xx', () => {
  let mcp: TestMcp;
  let headers: Record<string, string>;

  beforeAll(async () => {
    const demo = (await runCli('seed:demo', '--records', '5')).json as unknown as { tenant: { slug: string }; mcp_token: string };
    mcp = await startMcp({ MCP_RATE_LIMIT_PER_MINUTE: '100000', MCP_TENANT_RATE_LIMIT_PER_MINUTE: '100000' });
    headers = credentials(demo.mcp_token, demo.tenant.slug);
  });
  afterAll(() => mcp?.close());

  // The resource tools do what the compact ones do, one resource each: a quarter of the runs for each of their 50-odd.
  it.each([
    ['the compact tools, listed by default', FUZZ.runs, async () => ({ names: COMPACT_TOOL_NAMES, headers: {} })],
    ['every resource and summary tool, listed by X-MCP-Tools', Math.ceil(FUZZ.runs / 4), async () => {
      const names = grantableToolNames({ resources: READ_RESOURCES, summaries: await loadAreaSummaries() });
      return { names, headers: { [TOOLS_HEADER]: names.join(',') } };
    }],
  ])('answers %s, whatever the arguments, with a result or a named refusal', async (_, runs, selection) => {
    const { names, headers: selecting } = await selection();
    const selected = { ...headers, ...selecting };
    const listed = await shortcut(mcp.base, '/tools/list', selected);
    const tools = listed.body!.tools as { name: string; inputSchema: Schema }[];
    // A tool left out of the list would be left out of the fuzzing.
    expect(tools.map((tool) => tool.name).sort()).toEqual([...names].sort());
    const failures: string[] = [];
    for (const tool of tools) {
      const failure = await fuzzFailure(
        tool.name,
        argumentsFor(tool.inputSchema),
        async (args) => {
          const answer = await shortcut(mcp.base, '/tools/call', selected, { name: tool.name, arguments: args });
          expect([200, 422]).toContain(answer.status);
          // An isError result names what was wrong in the arguments; these two are the server's 500 and 503.
          if (answer.status === 200 && answer.body!.isError) expect([TOOL_FAILED_TEXT, TOOL_BUSY_TEXT]).not.toContain(answer.body!.content[0].text);
          if (answer.status !== 200) {
            expect(answer.headers.get('content-type')).toBe('application/problem+json');
            expect(answer.body).toMatchObject({ status: 422, detail_key: expect.any(String), field: expect.any(String) });
          }
        },
        { seed: FUZZ.seed, runs },
      );
      if (failure !== undefined) failures.push(failure);
    }
    expect(failures).toEqual([]);
  }, 240_000);
});
