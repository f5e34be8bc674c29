import type { INestApplicationContext } from '@nestjs/common';
import { demoSeeders } from '../app/features.js';
import type { DemoSeedContext } from '../platform/demo/demo-seeder.js';

/**
 * Runs every feature's demo seeder for one company in the context's transaction, in the order
 * of `demoSeeders()` (a seeder sees the ids the earlier ones returned: fleet assigns HR's
 * employees as drivers; documents attach to the records of every seeder that returns
 * `<owner>_ids`); returns all their id lists. Finance returns `customer_ids`, which seed:demo prints.
 */
export async function runDemoSeeders(
  app: INestApplicationContext,
  context: Omit<DemoSeedContext, 'ids'>,
  progress: (line: string) => void = () => undefined,
): Promise<Record<string, string[]>> {
  const ids: Record<string, string[]> = {};
  for (const seeder of demoSeeders()) {
    const started = performance.now();
    const returned = await app.get(seeder).seed({ ...context, ids });
    for (const [name, list] of Object.entries(returned ?? {})) ids[name] = [...(ids[name] ?? []), ...list];
    progress(`seed:demo: ${seeder.name} done in ${seconds(started)}`);
  }
  return ids;
}

export function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}
