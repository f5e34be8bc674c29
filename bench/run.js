// Benchmark: the service against a bare node:http + pg baseline doing the same key lookup and
// query, measured in the same run on the same machine; prints requests/s, mean/p50/p99 latency and
// the service ÷ baseline ratios, list page 200 vs page 1, the events feed's page 50 vs page 1
// (10,000 events, read by a key that sees four types), POST with vs without an Idempotency-Key, the
// API process's resident memory, and a final `RESULT {json}` line. Run with `npm run bench` (builds
// first). Needs the local PostgreSQL and Redis; creates and drops its own database and Redis
// prefix. BENCH_API_PROCESSES=N runs N service processes under node:cluster; BENCH_PROFILE=1 only
// profiles the service under GET /v1/invoices/{id} and prints where its CPU time goes;
// BENCH_PROFILE=list or =events does the same under the list of 50 or the events feed.
import autocannon from 'autocannon';
import { execFileSync, fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { dropDatabase, migrate } from '../dist/platform/database/database.js';
import { cpuMs } from './process-cpu.js';
import { printShares, summarise } from './profile-summary.js';
import { deleteRedisPrefix } from './redis-prefix.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const INVOICES = Number(process.env.BENCH_INVOICES ?? 10_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const PROCESSES = Number(process.env.BENCH_API_PROCESSES ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PROFILE_DIR = process.env.BENCH_PROFILE ? mkdtempSync(join(tmpdir(), 'bench-profile-')) : undefined;
const run = randomBytes(4).toString('hex');
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/integrations_bench_${run}`;
const env = {
  ...process.env,
  DATABASE_URL,
  REDIS_PREFIX: `oh-bench-${run}`,
  // The default level: one request line per request is part of the measured cost.
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  // The general limit stays on (its Redis round trip is part of the cost) but never throttles the bench.
  RATE_LIMIT_PER_SECOND: '1000000000',
  TENANT_RATE_LIMIT_PER_SECOND: '1000000000',
  // Likewise a company's turns (API_TENANT_CONCURRENCY, default 4): taken and given back on every
  // request, but as many as the bench's connections (at most 10), so that one company's 10
  // connections are not queued by a cap that shares the pool between companies, which the floor has
  // not. At 4, six of the ten requests always waited: retrieve 9 % fewer requests/s.
  API_TENANT_CONCURRENCY: String(Math.min(10, CONNECTIONS)),
  APP_ROLES: 'api',
};

/** The floors' start: the service's V8 flags, set before anything else is loaded, as the service sets them (src/main.ts). */
const V8_FLAGS_FIRST = ['--import', './dist/platform/runtime/set-v8-flags.js'];

function cli(...args) {
  return JSON.parse(execFileSync('node', ['dist/cli.js', ...args], { cwd: ROOT, env, encoding: 'utf8' }));
}

async function freePort() {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  return port;
}

async function waitForHttp(url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(url);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function startProcess(script, port, execArgv = [], extraEnv = {}) {
  const child = fork(script, [], { cwd: ROOT, env: { ...env, ...extraEnv, PORT: String(port) }, execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await waitForHttp(`http://127.0.0.1:${port}/`);
  return child;
}

/** Resolves when the child has exited (at once if it already has). */
function exited(child) {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');
}

function stopProcess(child) {
  child.kill('SIGTERM');
  return exited(child);
}

async function seed(pool) {
  const tenant = cli('tenant:create', '--name', 'Bench Company');
  const key = cli('key:create', '--tenant', tenant.id, '--scopes', 'int:fin.invoices:write', '--name', 'bench').key;
  const customer = cli('customer:create', '--tenant', tenant.id, '--name', 'Bench Customer').id;
  return { tenantId: tenant.id, key, customer, pool };
}

/** One invoice through the API, then copied in SQL (with its lines) to INVOICES rows spread over time. */
async function seedInvoices(base, { key, customer, pool }) {
  const response = await fetch(`${base}/v1/invoices`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      customer_id: customer,
      currency: 'EUR',
      notes: 'Benchmark invoice',
      lines: [
        { description: 'Consulting', qty: 3, unit_price_minor: 12500, tax_rate: 19 },
        { description: 'Travel', qty: 1, unit_price_minor: 4999, tax_rate: 7 },
      ],
    }),
  });
  if (response.status !== 201) throw new Error(`creating the template invoice failed: ${response.status} ${await response.text()}`);
  const template = await response.json();
  const columns = async (table, skip) =>
    (await pool.query(`SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position`, [table])).rows
      .map((row) => row.column_name)
      .filter((name) => !skip.includes(name));
  const invoiceColumns = await columns('invoices', ['id', 'created_at', 'updated_at']);
  const lineColumns = await columns('invoice_lines', ['id', 'invoice_id', 'created_at', 'updated_at']);
  const list = (names, prefix) => names.map((name) => `${prefix}${name}`).join(', ');
  await pool.query(
    `WITH copies AS (
       INSERT INTO invoices (id, created_at, updated_at, ${list(invoiceColumns, '')})
       SELECT gen_random_uuid(), i.created_at - g * interval '1 second', i.updated_at, ${list(invoiceColumns, 'i.')}
         FROM invoices i, generate_series(1, $2::int) g WHERE i.id = $1
       RETURNING id)
     INSERT INTO invoice_lines (id, invoice_id, ${list(lineColumns, '')})
     SELECT gen_random_uuid(), copies.id, ${list(lineColumns, 'l.')} FROM copies JOIN invoice_lines l ON l.invoice_id = $1`,
    [template.id, INVOICES - 1],
  );
  await pool.query('ANALYZE');
  return template.id;
}

async function measure(title, url, key, options = {}, seconds = SECONDS) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers: { authorization: `Bearer ${key}` }, ...options });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${title}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { title, rps: result.requests.average, mean: result.latency.average, p50: result.latency.p50, p99: result.latency.p99 };
}

/**
 * Two measurements compared by a ratio, taken in ROUNDS alternating slices of SECONDS / ROUNDS
 * each, in the order a, b, b, a, a, b…, so a change in the machine's load during the run weighs
 * on both sides alike, a steady one too: in the order a, b, a, b the second side always ran
 * later, and under the POSTs, whose every request grows the tables both sides write to, it
 * was always measured on the larger ones. Each figure is the mean over the slices.
 */
async function measurePair(a, b) {
  const slices = [[], []];
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const index of order) slices[index].push(await [a, b][index](Math.max(1, Math.round(SECONDS / ROUNDS))));
  }
  const mean = (list, field) => list.reduce((sum, item) => sum + item[field], 0) / list.length;
  return slices.map((list) => ({ title: list[0].title, rps: mean(list, 'rps'), mean: mean(list, 'mean'), p50: mean(list, 'p50'), p99: mean(list, 'p99') }));
}

/**
 * POST /v1/invoices, each request with a fresh Idempotency-Key when `idempotent`, so none is a
 * replay. Without, each request carries a fresh value in a header the service ignores instead:
 * the two sides then differ only in what the service does with the header, not in the work of the
 * client (which builds each request anew for a fresh value, and shares the two cores) nor in the
 * bytes the service reads.
 */
function measurePost(title, base, { key, customer }, idempotent, seconds) {
  const body = JSON.stringify({ customer_id: customer, currency: 'EUR', lines: [{ description: 'Bench', qty: 1, unit_price_minor: 100, tax_rate: 19 }] });
  const header = idempotent ? 'idempotency-key' : 'x-bench-nonce';
  return measure(title, `${base}/v1/invoices`, key, {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    requests: [{ setupRequest: (request) => ({ ...request, headers: { ...request.headers, [header]: randomUUID() } }) }],
  }, seconds);
}

/**
 * EVENTS events of the four invoice types, copied in SQL from the one the template invoice fired
 * (each with its own id and time in the envelope too), for the events feed.
 */
async function seedEvents({ tenantId, pool }) {
  await pool.query(
    `WITH template AS (SELECT envelope, created_at FROM events WHERE tenant_id = $1 AND type = 'fin.invoice.created' LIMIT 1)
     INSERT INTO events (id, tenant_id, type, envelope, created_at, dispatched_at)
     SELECT x.id, $1, x.type,
            template.envelope || jsonb_build_object('id', x.id, 'type', x.type, 'created_at', to_char(x.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
            x.at, x.at
       FROM template, generate_series(1, $2::int) g,
            LATERAL (SELECT gen_random_uuid() AS id, template.created_at - g * interval '1 second' AS at,
                            (ARRAY['fin.invoice.created', 'fin.invoice.updated', 'fin.invoice.voided', 'fin.invoice.paid'])[1 + g % 4] AS type) x`,
    [tenantId, EVENTS - 1],
  );
  await pool.query('ANALYZE events');
}

async function walkToPage(base, key, page, path = '/v1/invoices') {
  let cursor;
  for (let index = 1; index < page; index += 1) {
    const response = await fetch(`${base}${path}?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    cursor = (await response.json()).next_cursor;
    if (!cursor) throw new Error(`the list ended before page ${page}`);
  }
  return cursor;
}

/** A measurement that also tells the CPU one process spent per answered request. */
async function measureCpu(title, url, key, pid) {
  const before = cpuMs(pid);
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers: { authorization: `Bearer ${key}` } });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${title}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { title, rps: result.requests.average, cpuMsPerRequest: (cpuMs(pid) - before) / result.requests.total };
}

function residentMb(pid) {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1];
  return Number(kb) / 1024;
}

/**
 * The service: dist/main.js, or BENCH_API_PROCESSES workers under node:cluster; resolves with
 * their pids, and a `stop` that resolves once the service has exited.
 */
async function startService(port) {
  if (PROCESSES > 1) {
    const primary = fork('bench/cluster.js', [], { cwd: ROOT, env: { ...env, PORT: String(port), BENCH_API_PROCESSES: String(PROCESSES) }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const [{ workers }] = await once(primary, 'message');
    await waitForHttp(`http://127.0.0.1:${port}/`);
    return { pids: workers, stop: () => stopProcess(primary) };
  }
  const execArgv = PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR, '--import', './bench/exit-on-message.js'] : [];
  const child = await startProcess('dist/main.js', port, execArgv);
  // A profiled service must exit normally to write its profile.
  const stop = PROFILE_DIR
    ? () => {
        child.send('exit');
        return exited(child);
      }
    : () => stopProcess(child);
  return { pids: [child.pid], stop };
}

const fmt = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-').padStart(9);
const ratioRow = (title, over, under) => ({
  title,
  rps: over.rps / under.rps,
  mean: over.mean / under.mean,
  p50: over.p50 / under.p50,
  p99: over.p99 / under.p99,
  ratio: true,
});

function print(rows) {
  console.log(`${'request'.padEnd(48)}${'req/s'.padStart(9)}${'mean ms'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}`);
  for (const row of rows) {
    const digits = row.ratio ? 2 : 1;
    console.log(`${row.title.padEnd(48)}${fmt(row.rps, row.ratio ? 2 : 0)}${fmt(row.mean, digits)}${fmt(row.p50, digits)}${fmt(row.p99, digits)}`);
  }
}

async function main() {
  await migrate(DATABASE_URL);
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  const stops = [];
  try {
    const servicePort = await freePort();
    const serviceProcess = await startService(servicePort);
    stops.push(serviceProcess.stop);
    const service = `http://127.0.0.1:${servicePort}`;
    const context = await seed(pool);
    const invoiceId = await seedInvoices(service, context);
    // The measured routes, by the name BENCH_PROFILE and the ratio pairs use.
    const routes = {
      retrieve: { label: 'GET /v1/invoices/{id}', path: `/v1/invoices/${invoiceId}` },
      list: { label: 'GET /v1/invoices?limit=50', path: '/v1/invoices?limit=50' },
      events: { label: 'GET /v1/events?limit=50', path: '/v1/events?limit=50' },
    };
    console.log(
      `\n${INVOICES} invoices; ${CONNECTIONS} connections, ${SECONDS} s per measurement in ${ROUNDS} alternating slices; ${PROCESSES} API process(es); ${env.API_TENANT_CONCURRENCY} turns for the company; node ${process.version}\n`,
    );

    if (PROFILE_DIR) {
      // Profile mode: only the service under one route, then where its CPU time went.
      const { label, path } = routes[process.env.BENCH_PROFILE] ?? routes.retrieve;
      if (process.env.BENCH_PROFILE === 'events') await seedEvents(context);
      print([await measure(`service  ${label} (profiled)`, service + path, context.key)]);
      stops.pop();
      await serviceProcess.stop();
      const [file] = readdirSync(PROFILE_DIR).filter((name) => name.endsWith('.cpuprofile'));
      console.log(`\nself time by package, share of busy time (${join(PROFILE_DIR, file)}):`);
      printShares(summarise(join(PROFILE_DIR, file)).top);
      return;
    }

    const baselinePort = await freePort();
    const baselineProcess = await startProcess('bench/baseline-server.js', baselinePort, V8_FLAGS_FIRST);
    stops.push(() => stopProcess(baselineProcess));
    const baseline = `http://127.0.0.1:${baselinePort}`;

    await seedEvents(context);
    const floorBody = await (await fetch(service + routes.retrieve.path, { headers: { authorization: `Bearer ${context.key}` } })).text();
    const stackPort = await freePort();
    const stackProcess = await startProcess('bench/stack-floor.js', stackPort, V8_FLAGS_FIRST, { BENCH_FLOOR_BODY: floorBody });
    stops.push(() => stopProcess(stackProcess));
    const stack = `http://127.0.0.1:${stackPort}`;

    const rows = [];
    const pairs = {};
    for (const [name, { label, path }] of Object.entries(routes)) {
      const [measuredBaseline, measuredService] = await measurePair(
        (seconds) => measure(`baseline ${label}`, baseline + path, context.key, {}, seconds),
        (seconds) => measure(`service  ${label}`, service + path, context.key, {}, seconds),
      );
      pairs[name] = ratioRow('ratio service ÷ baseline', measuredService, measuredBaseline);
      rows.push(measuredBaseline, measuredService, pairs[name]);
    }
    // The retrieve's CPU per request in each process: the work without a framework (the floor),
    // the framework alone answering the same body as a constant (the stack), and the service;
    // what the service spends beyond the other two is the project's own share.
    const retrievePath = routes.retrieve.path;
    const cpuFloor = await measureCpu('floor', baseline + retrievePath, context.key, baselineProcess.pid);
    const stackFloor = await measureCpu('stack floor (NestJS + express, constant)', stack + retrievePath, context.key, stackProcess.pid);
    const cpuService = PROCESSES === 1 ? await measureCpu('service', service + retrievePath, context.key, serviceProcess.pids[0]) : undefined;
    const split = { floor: cpuFloor.cpuMsPerRequest, stack: stackFloor.cpuMsPerRequest, service: cpuService?.cpuMsPerRequest ?? NaN };
    split.project = split.service - split.floor - split.stack;
    rows.push({ ...stackFloor, mean: NaN, p50: NaN, p99: NaN });
    // With several service processes: one process beside them, in the same run, on the same route.
    let scaling;
    if (PROCESSES > 1) {
      const singlePort = await freePort();
      const single = await startProcess('dist/main.js', singlePort);
      try {
        const [one, all] = await measurePair(
          (seconds) => measure('service, 1 process', `http://127.0.0.1:${singlePort}${retrievePath}`, context.key, {}, seconds),
          (seconds) => measure(`service, ${PROCESSES} processes`, service + retrievePath, context.key, {}, seconds),
        );
        scaling = { one: one.rps, all: all.rps, floor: cpuFloor.rps };
        rows.push(one, all);
      } finally {
        await stopProcess(single);
      }
    }
    const cursor = await walkToPage(service, context.key, 200);
    const [first, deep] = await measurePair(
      (seconds) => measure('service  list page 1', `${service}/v1/invoices?limit=50`, context.key, {}, seconds),
      (seconds) => measure('service  list page 200', `${service}/v1/invoices?limit=50&cursor=${encodeURIComponent(cursor)}`, context.key, {}, seconds),
    );
    pairs.page = ratioRow('ratio page 200 ÷ page 1', deep, first);
    rows.push(first, deep, pairs.page);
    const eventsCursor = await walkToPage(service, context.key, 50, '/v1/events');
    const [eventsFirst, eventsDeep] = await measurePair(
      (seconds) => measure('service  GET /v1/events page 1', `${service}/v1/events?limit=50`, context.key, {}, seconds),
      (seconds) => measure('service  GET /v1/events page 50', `${service}/v1/events?limit=50&cursor=${encodeURIComponent(eventsCursor)}`, context.key, {}, seconds),
    );
    pairs.eventsPages = ratioRow('ratio events page 50 ÷ page 1', eventsDeep, eventsFirst);
    rows.push(eventsFirst, eventsDeep, pairs.eventsPages);
    const [plain, idempotent] = await measurePair(
      (seconds) => measurePost('service  POST /v1/invoices', service, context, false, seconds),
      (seconds) => measurePost('service  POST /v1/invoices + Idempotency-Key', service, context, true, seconds),
    );
    pairs.post = ratioRow('ratio with ÷ without Idempotency-Key', idempotent, plain);
    rows.push(plain, idempotent, pairs.post);
    print(rows);
    console.log(
      cpuService
        ? `\nGET /v1/invoices/{id}, CPU of the Node process per request: service ${split.service.toFixed(3)} ms = the work (floor) ${split.floor.toFixed(3)} ms` +
            ` + the stack (NestJS + express) ${split.stack.toFixed(3)} ms + the project ${split.project.toFixed(3)} ms`
        : `\nGET /v1/invoices/{id}, CPU per request: the work (floor) ${split.floor.toFixed(3)} ms, the stack ${split.stack.toFixed(3)} ms (the service's own is split with one process only)`,
    );

    if (scaling) {
      console.log(
        `GET /v1/invoices/{id} with ${PROCESSES} processes: ${Math.round(scaling.all)} requests/s combined, ` +
          `${Math.round(scaling.one)} with one process (×${(scaling.all / scaling.one).toFixed(2)}), the floor (one process) ${Math.round(scaling.floor)}`,
      );
    }
    const rss = serviceProcess.pids.map(residentMb);
    console.log(`\nresident memory of the API process${rss.length > 1 ? 'es' : ''} after the bench: ${rss.map((mb) => `${mb.toFixed(0)} MB`).join(', ')}`);
    const metrics = await (await fetch(`${service}/metrics`)).text();
    const gauge = (name) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(metrics)?.[1] ?? NaN) / 2 ** 20;
    console.log(
      `of which (its /metrics${PROCESSES > 1 ? ', one process' : ''}): V8 heap ${gauge('nodejs_heap_size_total_bytes').toFixed(0)} MB ` +
        `(${gauge('nodejs_heap_size_used_bytes').toFixed(0)} MB used), external ${gauge('nodejs_external_memory_bytes').toFixed(0)} MB`,
    );
    const result = {
      api_processes: PROCESSES,
      retrieve_ratio: round(pairs.retrieve.rps),
      retrieve_p99_ratio: round(pairs.retrieve.p99),
      list_ratio: round(pairs.list.rps),
      idempotent_post_latency_ratio: round(pairs.post.mean),
      rss_mb: Math.round(Math.max(...rss)),
      page200_over_page1: round(pairs.page.mean),
      events_ratio: round(pairs.events.rps),
      events_page1_rps: Math.round(eventsFirst.rps),
      events_page50_over_page1: round(pairs.eventsPages.mean),
      stack_floor_rps: Math.round(stackFloor.rps),
      ...(cpuService ? { project_ms_per_request: Math.round(split.project * 1000) / 1000 } : {}),
      ...(scaling ? { one_process_retrieve_rps: Math.round(scaling.one), all_processes_retrieve_rps: Math.round(scaling.all) } : {}),
    };
    const goal = {
      retrieve_ratio: result.retrieve_ratio >= 0.5,
      retrieve_p99_ratio: result.retrieve_p99_ratio <= 2,
      list_ratio: result.list_ratio >= 0.9,
      events_ratio: result.events_ratio >= 0.8,
      idempotent_post_latency_ratio: result.idempotent_post_latency_ratio <= 1.3,
      rss_mb: result.rss_mb <= 250,
      page200_over_page1: result.page200_over_page1 <= 1.2,
    };
    const missed = Object.keys(goal).filter((name) => !goal[name]);
    console.log(`goal (issue 20, against the honest floor): ${missed.length === 0 ? 'met' : `missed on ${missed.join(', ')}`}`);
    console.log(`RESULT ${JSON.stringify(result)}`);
  } finally {
    await Promise.all(stops.reverse().map((stop) => stop()));
    await pool.end();
    await dropDatabase(DATABASE_URL);
    await deleteRedisPrefix(env.REDIS_PREFIX);
  }
}

const round = (value) => Math.round(value * 100) / 100;

await main();
