import { Faker, base, en } from '@faker-js/faker';
import type { INestApplicationContext } from '@nestjs/common';
import { runDemoSeeders } from '../../src/cli/demo-seeders.js';
import { TenantData } from '../../src/platform/tenancy/tenant-data.js';

/**
 * `records` records of every readable resource for a company, made by the modules' own demo
 * seeders (the same code as seed:demo) with the given faker seed. Returns their id lists.
 */
export async function seedRecords(app: INestApplicationContext, tenantId: string, records: number, seed: number): Promise<Record<string, string[]>> {
  const faker = new Faker({ locale: [en, base], seed });
  return app.get(TenantData).transaction(tenantId, (data) => runDemoSeeders(app, { data, records, faker }));
}
