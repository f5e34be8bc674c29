import { ApiProperty } from '@nestjs/swagger';
import { Column, Entity } from 'typeorm';
import { TenantOwnedEntity } from '../../../src/platform/resources/tenant-owned.entity.js';

/** File 1 of the walk-through of a new resource (docs/choices.md, "Adding a readable resource"): the entity and its DTO. */
@Entity('widgets')
export class Widget extends TenantOwnedEntity {
  @Column({ type: 'text' })
  label: string;
}

export class WidgetDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'Blue widget' })
  label: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

/** File 4: the migration, here as the test's SQL. */
export const WIDGETS_MIGRATION = `
  CREATE TABLE widgets (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    tenant_id uuid NOT NULL REFERENCES tenants (id),
    label text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
  );
  CREATE INDEX widgets_tenant_created_idx ON widgets (tenant_id, created_at DESC, id DESC);
  CREATE INDEX widgets_tenant_updated_idx ON widgets (tenant_id, updated_at DESC, id DESC);`;
