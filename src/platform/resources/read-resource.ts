import type { Type } from '@nestjs/common';
import type { Scope } from '../catalog/scopes.js';
import type { CursorPosition } from '../pagination/cursor-codec.js';
import type { KeysetRows } from '../pagination/paginator.service.js';
import type { TenantScope } from '../tenancy/tenant-data.js';
import type { TenantOwnedEntity } from './tenant-owned.entity.js';

/** `firstName` → `first_name`: the column the snake-case naming strategy gives a property. */
type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}` ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}` : S;
/** A column of the entity E's table. */
export type ColumnOf<E> = SnakeCase<keyof E & string>;

/** The business areas resources belong to; one `summarise_<area>` tool for each whose feature declares a summary. */
export const AREAS = ['finance', 'fleet', 'hr', 'support', 'documents'] as const;
export type Area = (typeof AREAS)[number];

/**
 * Everything about one readable resource, declared once. The REST list/retrieve routes, their
 * OpenAPI operations, the agent-tool server's list/get/search/recent tools and every other list
 * of resources derive from these declarations, which each feature's manifest names (src/app/features.ts).
 */
export interface ReadResource<E extends TenantOwnedEntity = TenantOwnedEntity, R extends object = object> {
  /** Path segment (`/v1/<name>`), error keys (`errors.integrations.<name>.…`) and tool names: snake_case, plural. */
  readonly name: string;
  readonly area: Area;
  readonly entity: Type<E>;
  /** The response DTO: its `@ApiProperty` metadata is the OpenAPI schema and the tools' output schema. */
  readonly item: Type<R>;
  /** The API key scope of the REST routes; a person needs the matching permission for the tools. */
  readonly scope: Scope;
  /** OpenAPI tag. */
  readonly tag: string;
  /** `work order`, `an` or `a`: for summaries and messages. */
  readonly singular: string;
  readonly article: 'a' | 'an';
  /** What one record is, for a model choosing a tool. */
  readonly description: string;
  /** Columns a person would search by (numbers, names, registrations, subjects, e-mails), in reading order. */
  readonly searchable: readonly ColumnOf<E>[];
  /** Entity rows of one company → API representations, in order (batch, so related rows load once). */
  readonly represent: (rows: E[], scope: TenantScope) => R[] | Promise<R[]>;
  /**
   * Optional fast retrieve for a hot resource: one prepared statement and mapper giving the
   * representation (or undefined), instead of the query builder, hydration and `represent`.
   */
  readonly retrieve?: (scope: TenantScope, id: string) => Promise<R | undefined>;
  /**
   * Optional fast list page for a hot resource, the list's counterpart of `retrieve`: up to
   * `take` representations after `after` (from the newest when undefined), newest first by
   * `created_at` then `id`, each with its position, in one prepared statement. The reader keeps
   * cursors, limits and `has_more`, so both paths page alike. A page may stop short of `take`
   * to keep within a budget of its own (`cut`: more follow).
   */
  readonly list?: (scope: TenantScope, after: CursorPosition | undefined, take: number) => Promise<KeysetRows<R>>;
}

/** Declares a resource whose representation maps each row on its own. */
export function readResource<E extends TenantOwnedEntity, R extends object>(
  declaration: Omit<ReadResource<E, R>, 'represent'> & ({ toResource: (row: E) => R } | { represent: ReadResource<E, R>['represent'] }),
): ReadResource<E, R> {
  const { toResource, represent, ...rest } = declaration as Omit<ReadResource<E, R>, 'represent'> & {
    toResource?: (row: E) => R;
    represent?: ReadResource<E, R>['represent'];
  };
  return { ...rest, represent: represent ?? ((rows: E[]) => rows.map(toResource!)) };
}

export function pluralLabel(resource: Pick<ReadResource, 'name'>): string {
  return resource.name.replace(/_/g, ' ');
}

/**
 * One `summarise_<area>` answer: the aggregate questions people ask an assistant about an area.
 * `scopes`: every read scope whose data the summary counts; a person needs all their permissions.
 */
export interface AreaSummary<S extends object = object> {
  readonly area: Area;
  readonly title: string;
  readonly description: string;
  readonly scopes: readonly Scope[];
  /** A zod object schema of the answer (the tool's output schema). */
  readonly output: unknown;
  readonly compute: (scope: TenantScope) => Promise<S>;
}
