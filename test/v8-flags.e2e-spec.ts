import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { Scope } from '../src/platform/catalog/scopes.js';
import { startApi, type TestApi } from './support/api.js';
import { listeningPort, type MainProcess, spawnMain, spawnNode } from './support/main-process.js';
import { createTenantSession } from './support/tenant-session.js';

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

describe('node dist/main.js sets them before it loads anything else (src/main.ts)', () => {
  let api: TestApi;
  let main: MainProcess;
  let base: string;

  beforeAll(async () => {
    api = await startApi();
    // Limits and turns out of reach: the requests below are answered, not refused, however fast they come.
    main = spawnMain({ APP_ROLES: 'api', PORT: '0', RATE_LIMIT_PER_SECOND: '1000000', TENANT_RATE_LIMIT_PER_SECOND: '1000000', API_TENANT_CONCURRENCY: '10' });
    base = `http://127.0.0.1:${await listeningPort(main)}`;
  }, 90_000);

  afterAll(async () => {
    await main.stop();
    await api.close();
  });

  it('so that the objects of a request die young: 3,000 requests grow the old generation by a few MB, not by 13 KB each', async () => {
    const { auth } = await createTenantSession(api.app, { scopes: [Scope.FinInvoicesRead] });
    const oldSpace = async () => {
      const metrics = await (await fetch(`${base}/metrics`)).text();
      return Number(/^nodejs_heap_space_size_used_bytes\{space="old"\} (\S+)$/m.exec(metrics)![1]);
    };
    const statuses = new Map<number, number>();
    const load = async (requests: number) => {
      let left = requests;
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (left-- > 0) {
            const res = await fetch(`${base}/v1/invoices?limit=1`, { headers: { authorization: auth } });
            await res.arrayBuffer();
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          }
        }),
      );
    };
    await load(500);
    // Summed between samples, so that a full collection in between cannot hide what grew before it.
    let grown = 0;
    let last = await oldSpace();
    for (let round = 0; round < 30; round += 1) {
      await load(100);
      const now = await oldSpace();
      grown += Math.max(0, now - last);
      last = now;
    }
    expect([...statuses]).toEqual([[200, 3500]]);
    // Measured: 8.5 MB; with the flags set after main.ts's imports had loaded, 38 MB.
    expect(grown / 2 ** 20).toBeLessThan(20);
  }, 60_000);
});
