import type { Type } from '@nestjs/common';
import * as z from 'zod';

// The metadata keys @nestjs/swagger's @ApiProperty writes (its DECORATORS constants, not exported by the package).
const PROPERTIES = 'swagger/apiModelProperties';
const PROPERTY_NAMES = 'swagger/apiModelPropertiesArray';

interface PropertyMetadata {
  type?: unknown;
  enum?: readonly string[];
  description?: string;
  isArray?: boolean;
  format?: string;
}

/**
 * The zod schema of a response DTO, read from the `@ApiProperty` metadata that also writes its
 * OpenAPI schema, so the tools' output schemas cannot drift from REST. Every member but `id`
 * is optional because tool results leave out null members.
 */
export function itemSchema(dto: Type<unknown>): z.ZodObject {
  const names = (Reflect.getMetadata(PROPERTY_NAMES, dto.prototype) as string[] | undefined) ?? [];
  const shape: Record<string, z.ZodType> = {};
  for (const name of names.map((entry) => entry.replace(/^:/, ''))) {
    const metadata = Reflect.getMetadata(PROPERTIES, dto.prototype, name) as PropertyMetadata;
    let member = memberSchema(metadata);
    if (metadata.description) member = member.describe(metadata.description);
    shape[name] = name === 'id' ? member : member.optional();
  }
  return z.object(shape);
}

function memberSchema(metadata: PropertyMetadata): z.ZodType {
  const { type } = metadata;
  if (metadata.enum) return z.enum(metadata.enum as [string, ...string[]]);
  const scalar = (): z.ZodType => {
    if (type === 'integer') return z.number().int();
    if (type === Number || type === 'number') return z.number();
    if (type === Boolean || type === 'boolean') return z.boolean();
    if (type === String || type === 'string' || type === undefined) return z.string();
    if (typeof type === 'function') return itemSchema(type as Type<unknown>);
    return z.unknown();
  };
  if (Array.isArray(type)) return z.array(typeof type[0] === 'function' && type[0] !== String ? itemSchema(type[0] as Type<unknown>) : z.unknown());
  return metadata.isArray ? z.array(scalar()) : scalar();
}
