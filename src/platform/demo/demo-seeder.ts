import type { Faker } from '@faker-js/faker';
import type { TenantScope } from '../tenancy/tenant-data.js';

/** What `seed:demo` hands each module's seeder. */
export interface DemoSeedContext {
  /** The company being seeded, inside the one transaction the whole company is seeded in. */
  data: TenantScope;
  /** How many records of every readable resource to create (`--records`, default 25). */
  records: number;
  /** Seeded faker, so a demo company is the same every time. */
  faker: Faker;
  /**
   * The id lists returned by the seeders that ran before this one (e.g. `employee_ids` from
   * HR, used by fleet for drivers), so modules can reference each other's records without
   * reading each other's tables. The manifests' `seeder.after` decides who runs first.
   * Absent when a seeder runs on its own (tests).
   */
  ids?: Readonly<Record<string, readonly string[]>>;
}

/**
 * A module's demo data for `seed:demo`. Each feature module provides one (an injectable
 * exported by the module) and names it in its manifest.
 */
export interface DemoSeeder {
  /** Returns ids other parts of the seed output need (e.g. `customer_ids`), or nothing. */
  seed(context: DemoSeedContext): Promise<Record<string, string[]> | void>;
}
