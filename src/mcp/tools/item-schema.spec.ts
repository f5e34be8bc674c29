import 'reflect-metadata';
import { ApiProperty } from '@nestjs/swagger';
import * as z from 'zod';
import { itemSchema } from './item-schema.js';

class LineDto {
  @ApiProperty({ type: 'integer' })
  qty: number;
}

class ThingDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: ['open', 'closed'], description: 'Where it stands.' })
  status: string;

  @ApiProperty({ type: String, nullable: true })
  note: string | null;

  @ApiProperty({ type: [LineDto] })
  lines: LineDto[];
}

describe('itemSchema', () => {
  const schema = itemSchema(ThingDto);

  it('follows the OpenAPI metadata: enums, integers, nested arrays, descriptions', () => {
    const json = z.toJSONSchema(schema) as { properties: Record<string, any>; required: string[] };
    expect(json.properties.status).toMatchObject({ enum: ['open', 'closed'], description: 'Where it stands.' });
    expect(json.properties.lines.items.properties.qty.type).toBe('integer');
    expect(json.required).toEqual(['id']);
  });

  it('accepts an item whose null members were left out, and refuses a wrong type', () => {
    expect(schema.safeParse({ id: 'x', status: 'open', lines: [{ qty: 2 }] }).success).toBe(true);
    expect(schema.safeParse({ id: 'x', status: 'gone' }).success).toBe(false);
    expect(schema.safeParse({ id: 'x', lines: [{ qty: 1.5 }] }).success).toBe(false);
  });
});
