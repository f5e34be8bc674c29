import type { INestApplicationContext, Type } from '@nestjs/common';
import { DocumentsDemoSeeder } from '../documents/documents-demo.seeder.js';
import { FinanceDemoSeeder } from '../finance/finance-demo.seeder.js';
import { FleetDemoSeeder } from '../fleet/fleet-demo.seeder.js';
import { HrDemoSeeder } from '../hr/hr-demo.seeder.js';
import type { DemoSeedContext, DemoSeeder } from '../platform/demo/demo-seeder.js';
import { SupportDemoSeeder } from '../support/support-demo.seeder.js';

/**
 * Every module's demo seeder, run by `seed:demo` in this order: a seeder sees the ids the
 * earlier ones returned (fleet assigns HR's employees as drivers; documents attach to the
 * records of every seeder that returns `<owner>_ids`). Finance returns `customer_ids`, which
 * seed:demo prints.
 */
export const DEMO_SEEDERS: Type<DemoSeeder>[] = [FinanceDemoSeeder, HrDemoSeeder, FleetDemoSeeder, SupportDemoSeeder, DocumentsDemoSeeder];

/** Runs every seeder for one company in the context's transaction; returns all their id lists. */
export async function runDemoSeeders(app: INestApplicationContext, context: Omit<DemoSeedContext, 'ids'>): Promise<Record<string, string[]>> {
  const ids: Record<string, string[]> = {};
  for (const seeder of DEMO_SEEDERS) {
    const returned = await app.get(seeder).seed({ ...context, ids });
    for (const [name, list] of Object.entries(returned ?? {})) ids[name] = [...(ids[name] ?? []), ...list];
  }
  return ids;
}
