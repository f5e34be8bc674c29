import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { spawnNode } from './support/main-process.js';

/**
 * Rows made at one allocation site and all kept (as rows a process holds on to), then many more
 * from the same site that die young (as a request's do): how far the old generation grew over
 * the second part, in MB. With pretenuring, V8 has learnt from the first part that the site's
 * objects live long, and allocates the young ones old too.
 */
const WORKLOAD = `
  import v8 from 'node:v8';
  if (process.argv[1] === 'flags') (await import(${JSON.stringify(pathToFileURL(join(process.cwd(), 'dist/platform/runtime/v8-flags.js')).href)})).applyV8Flags();
  const oldSpace = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space').space_used_size;
  const row = (i) => ({ id: i, name: 'row ' + i, at: i * 2 });
  const rows = (n) => {
    const made = new Array(n);
    for (let i = 0; i < n; i += 1) made[i] = row(i);
    return made;
  };
  const kept = [];
  for (let round = 0; round < 40; round += 1) kept.push(rows(20000));
  // Summed over the rounds, so that a full collection in between cannot hide what grew before it.
  let grown = 0;
  let last = oldSpace();
  let made = 0;
  for (let round = 0; round < 1000; round += 1) {
    made += rows(2000).length;
    const now = oldSpace();
    grown += Math.max(0, now - last);
    last = now;
  }
  console.log(JSON.stringify({ grownMb: grown / 2 ** 20, made, kept: kept.length }));
`;

async function oldSpaceGrowth(withFlags: boolean): Promise<number> {
  const child = spawnNode(['--input-type=module', '-e', WORKLOAD, withFlags ? 'flags' : 'defaults']);
  expect({ code: await child.exit, stderr: child.stderr() }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(child.stdout()).grownMb as number;
}

describe('the V8 flags every role sets at start (src/platform/runtime/v8-flags.ts)', () => {
  it('take effect when set at runtime: an allocation site V8 would pretenure keeps allocating short-lived objects young', async () => {
    // The control: V8's default pretenures the site, so this workload does tell the two apart.
    expect(await oldSpaceGrowth(false)).toBeGreaterThan(40);
    expect(await oldSpaceGrowth(true)).toBeLessThan(10);
  });
});
