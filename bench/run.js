// Benchmark: the service against a bare node:http + pg baseline doing the same key lookup and
// query, measured in the same run on the same machine; prints requests/s, p50/p99 latency and
// the service ÷ baseline ratios, plus list page 1 vs page 200. Run with `npm run bench`
// (builds first). Needs the local PostgreSQL and Redis; creates and drops its own database.
import autocannon from 'autocannon';
import { execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { dropDatabase, migrate } from '../dist/platform/database/database.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const INVOICES = Number(process.env.BENCH_INVOICES ?? 10_000);
const run = randomBytes(4).toString('hex');
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/integrations_bench_${run}`;
const env = {
  ...process.env,
  DATABASE_URL,
  REDIS_PREFIX: `oh-bench-${run}`,
  LOG_LEVEL: 'warn',
  // The general limit stays on (its Redis round trip is part of the cost) but never throttles the bench.
  RATE_LIMIT_PER_SECOND: '1000000000',
  APP_ROLES: 'api',
};

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

async function startProcess(script, port) {
  const child = fork(script, [], { cwd: ROOT, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await waitForHttp(`http://127.0.0.1:${port}/`);
  return child;
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

async function measure(title, url, key) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers: { authorization: `Bearer ${key}` } });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${title}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { title, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

async function walkToPage(base, key, page) {
  let cursor;
  for (let index = 1; index < page; index += 1) {
    const response = await fetch(`${base}/v1/invoices?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    cursor = (await response.json()).next_cursor;
    if (!cursor) throw new Error(`the list ended before page ${page}`);
  }
  return cursor;
}

const fmt = (value, digits = 0) => value.toFixed(digits).padStart(9);


async function main() {
  await migrate(DATABASE_URL);
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
  const children = [];
  try {
    const servicePort = await freePort();
    children.push(await startProcess('dist/main.js', servicePort));
    const service = `http://127.0.0.1:${servicePort}`;
    const context = await seed(pool);
    const invoiceId = await seedInvoices(service, context);

    const baselinePort = await freePort();
    children.push(await startProcess('bench/baseline-server.js', baselinePort));
    const baseline = `http://127.0.0.1:${baselinePort}`;

    console.log(`\n${INVOICES} invoices; ${CONNECTIONS} connections, ${SECONDS} s per measurement; node ${process.version}\n`);
    const rows = [];
    for (const [name, path] of [
      ['GET /v1/invoices/{id}', `/v1/invoices/${invoiceId}`],
      ['GET /v1/invoices?limit=50', '/v1/invoices?limit=50'],
    ]) {
      const measuredBaseline = await measure(`baseline ${name}`, baseline + path, context.key);
      const measuredService = await measure(`service  ${name}`, service + path, context.key);
      rows.push(measuredBaseline, measuredService);
      rows.push({
        title: `ratio service ÷ baseline`,
        rps: measuredService.rps / measuredBaseline.rps,
        p50: measuredService.p50 / measuredBaseline.p50,
        p99: measuredService.p99 / measuredBaseline.p99,
        ratio: true,
      });
    }
    const cursor = await walkToPage(service, context.key, 200);
    const first = await measure('service  list page 1', `${service}/v1/invoices?limit=50`, context.key);
    const deep = await measure('service  list page 200', `${service}/v1/invoices?limit=50&cursor=${encodeURIComponent(cursor)}`, context.key);
    rows.push(first, deep, { title: 'ratio page 200 ÷ page 1', rps: deep.rps / first.rps, p50: deep.p50 / first.p50, p99: deep.p99 / first.p99, ratio: true });

    console.log(`${'request'.padEnd(44)}${'req/s'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}`);
    for (const row of rows) {
      const digits = row.ratio ? 2 : 1;
      console.log(`${row.title.padEnd(44)}${fmt(row.rps, row.ratio ? 2 : 0)}${fmt(row.p50, digits)}${fmt(row.p99, digits)}`);
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await pool.end();
    await dropDatabase(DATABASE_URL);
  }
}

await main();
