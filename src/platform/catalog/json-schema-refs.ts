import type { JsonSchema } from './event-data-schemas.js';

const COMPONENT_REF = /^#\/components\/schemas\/(.+)$/;

/**
 * A schema with every `#/components/schemas/…` reference replaced by the component itself, so
 * it stands alone outside the OpenAPI document. Components that refer to themselves stay a
 * reference on the inner occurrence.
 */
export function inlineRefs(schema: unknown, components: Record<string, unknown>, seen: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inlineRefs(item, components, seen));
  if (typeof schema !== 'object' || schema === null) return schema;
  const object = schema as JsonSchema;
  const name = typeof object.$ref === 'string' ? COMPONENT_REF.exec(object.$ref)?.[1] : undefined;
  if (name !== undefined && components[name] !== undefined && !seen.has(name)) {
    const { $ref: _ref, ...siblings } = object;
    const target = inlineRefs(components[name], components, new Set([...seen, name])) as JsonSchema;
    return Object.keys(siblings).length === 0 ? target : { ...target, ...siblings };
  }
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, inlineRefs(value, components, seen)]));
}
