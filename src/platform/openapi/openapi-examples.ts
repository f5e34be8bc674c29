import { createHash } from 'node:crypto';
import { Errors, RESOURCE_KEY, resourceErrors } from '../catalog/errors.js';

type Schema = Record<string, any>;

/**
 * A schema extension naming the schema whose example an open member shows: the events feed's
 * `data`, any resource by its type, shows an invoice.
 */
export const EXAMPLE_OF = 'x-example-of';

/**
 * Example values for media types that declare none, built from the schema: a property's own
 * `example` first, then its enum, default or format, so Swagger UI and generated clients show
 * realistic values (no all-zero or Swagger's placeholder UUIDs, no 2^53−1 amounts taken from a
 * `maximum`). Ids are UUIDs derived from the member's name: stable across builds, distinct per member.
 */
export function exampleFor(schema: Schema | undefined, schemas: Record<string, Schema>, name = 'id', seen: string[] = [], inRecord = false): unknown {
  if (!schema) return undefined;
  if (schema[EXAMPLE_OF]) return exampleFor(schema[EXAMPLE_OF], schemas, name, seen, inRecord);
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref.replace('#/components/schemas/', '');
    if (seen.includes(target)) return undefined;
    return exampleFor(schemas[target], schemas, name, [...seen, target], inRecord);
  }
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.find((value: unknown) => value !== null) ?? schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  for (const combined of ['allOf', 'oneOf', 'anyOf'] as const) {
    if (!Array.isArray(schema[combined])) continue;
    const parts = (schema[combined] as Schema[]).map((part) => exampleFor(part, schemas, name, seen, inRecord)).filter((part) => part !== undefined && part !== null);
    if (combined === 'allOf' && parts.every((part) => typeof part === 'object' && !Array.isArray(part))) return Object.assign({}, ...parts);
    return parts[0];
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type ?? (schema.properties ? 'object' : undefined)) {
    case 'object': {
      const example: Record<string, unknown> = {};
      for (const [member, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
        // A record's id inside another record is named for its member (an invoice's `lines` →
        // `line_id`): it differs from its parent's, and equals a `<name>_id` that refers to it. A
        // record's own id is named for its schema: a vehicle's test event does not carry the id of
        // an invoice's, which a receiver keeping records by id would take for the same record.
        const named = member !== 'id' ? member : inRecord ? `${name.replace(/s$/, '')}_id` : seen.length > 0 ? `${seen.at(-1)}.id` : member;
        const value = exampleFor(property, schemas, named, seen, 'id' in (schema.properties ?? {}));
        if (value !== undefined) example[member] = value;
      }
      return example;
    }
    case 'array': {
      const item = exampleFor(schema.items, schemas, name, seen, inRecord);
      return item === undefined ? [] : [item];
    }
    case 'string':
      return stringExample(schema, name);
    case 'integer':
      if (name.endsWith('_minor')) return MONEY_EXAMPLES[name] ?? 12000;
      return Math.max(schema.minimum ?? 1, Math.min(schema.maximum ?? 42, 42));
    case 'number':
      return Math.max(schema.minimum ?? 0, Math.min(schema.maximum ?? 19.5, 19.5));
    case 'boolean':
      return true;
    default:
      return undefined;
  }
}

/** Amounts that add up as the API computes them: 18,000 net at 19 % tax, unpaid. */
const MONEY_EXAMPLES: Record<string, number> = {
  net_minor: 18000,
  subtotal_minor: 18000,
  tax_minor: 3420,
  total_minor: 21420,
  paid_minor: 0,
  balance_minor: 21420,
};

function stringExample(schema: Schema, name: string): string {
  switch (schema.format) {
    case 'uuid':
      return uuidFor(name);
    case 'date':
      return '2026-05-16';
    case 'date-time':
      return '2026-05-16T09:30:00.000Z';
    case 'uri':
      return 'https://api.example.com/v1/invoices';
    case 'email':
      return 'jane.doe@example.com';
  }
  const hex = typeof schema.pattern === 'string' ? /^\^\[0-9a-f\]\{(\d+)\}\$$/.exec(schema.pattern) : null;
  if (hex) return createHash('sha256').update(name).digest('hex').repeat(4).slice(0, Number(hex[1]));
  if (name === 'currency') return 'EUR';
  if (name.endsWith('_id')) return uuidFor(name);
  return name.replace(/_/g, ' ');
}

function uuidFor(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A problem as the operation answers it with `status`: the catalogue entry of that status its
 * answer's description names first (a readable resource's own keys included), else the first of
 * that status an API operation can give (the admin CLI's and the tool server's keys are never a
 * REST answer).
 */
export function problemExample(status: number, errorsBaseUrl: string, description = ''): Record<string, unknown> | undefined {
  const ofResources = [...description.matchAll(RESOURCE_KEY)].flatMap(([, name]) => Object.values(resourceErrors(name)));
  const ofStatus = [...Object.values(Errors), ...ofResources].filter((entry) => entry.status === status);
  const mentioned = (entry: (typeof ofStatus)[number]) => description.indexOf(`\`${entry.detailKey}\``);
  const named = ofStatus.filter((entry) => mentioned(entry) >= 0).sort((a, b) => mentioned(a) - mentioned(b));
  const definition = named[0] ?? ofStatus.find((entry) => !/^errors\.(admin|mcp)\./.test(entry.detailKey));
  if (!definition) return undefined;
  return {
    type: `${errorsBaseUrl}/${definition.type}`,
    title: definition.title,
    status,
    detail: `${definition.title}.`,
    detail_key: definition.detailKey,
    ...(definition.code === undefined ? {} : { code: definition.code }),
  };
}
