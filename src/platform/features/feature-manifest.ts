import type { Type } from '@nestjs/common';
import type { CommandGroup } from '../cli/command-group.js';
import type { DemoSeeder } from '../demo/demo-seeder.js';
import type { AreaSummary, ReadResource } from '../resources/read-resource.js';

/**
 * Everything a feature folder adds to the application, named in one object that the roles
 * (`src/app/features.ts`) and the admin CLI read. A new feature is its folder plus one line in
 * FEATURES (and its entries in the one lists of scopes, event types, areas and migrations:
 * docs/architecture.md, "Adding a feature"); a new readable resource is its declaration plus one
 * line in `resources`.
 */
export interface FeatureManifest {
  /** The folder's name. */
  readonly name: string;
  /** The Nest modules the api, mcp and cli roles load: entities, services, controllers, seeder. */
  readonly modules: readonly Type[];
  /** The worker role's module (jobs, background loops), imported only by that role so that no other loads its files. */
  readonly worker?: () => Promise<Type>;
  /** Readable resources, in the order of their routes and tools. */
  // `any`: each resource has its own entity and DTO types; the declarations themselves are typed.
  readonly resources?: readonly ReadResource<any, any>[];
  /** The area's `summarise_<area>` answer, imported only by the mcp role (its zod schema is the only reason another role would load zod). */
  readonly summary?: () => Promise<AreaSummary>;
  /** The demo seeder (a provider of one of `modules`), run by `seed:demo` after the seeders of the features named in `after`. */
  readonly seeder?: { readonly type: Type<DemoSeeder>; readonly after?: readonly string[] };
  /** The feature's admin commands. */
  readonly commands?: CommandGroup;
  /** The OpenAPI tags its routes use, with their descriptions. */
  readonly tags?: Readonly<Record<string, string>>;
}
