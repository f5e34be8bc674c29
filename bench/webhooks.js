// Webhook delivery benchmark (`npm run bench:webhooks`, builds first). In one run, on one machine:
//   1. throughput: BENCH_BURST events committed at once, delivered by ONE worker process
//      (`node dist/main.js`, APP_ROLES=worker, at LOG_LEVEL=info unless BENCH_LOG_LEVEL says
//      otherwise, its stdout discarded) to a local receiver answering 204: deliveries/s from the
//      commit to the last arrival;
//   2. latency: BENCH_RATE events/s (100) for BENCH_SECONDS, each committed on its own: commit →
//      receiver p50/p99;
//   3. baseline: a bare loop that signs the same envelopes and POSTs them with undici at the
//      per-endpoint cap (all the service may have in flight to one endpoint), with no queue and
//      no database, after the same warm-up (200) as the service's: deliveries/s. It runs in this
//      process, started with the V8 flags every role of the service sets, set as the service sets
//      them, before anything else is loaded (the npm script's `--import` of `set-v8-flags.js`);
//   4. isolation: the healthy endpoint fed BENCH_ISOLATION_RATE events/s (50) alone for 10 s,
//      then for BENCH_ISOLATION_SECONDS (20) beside 5 endpoints of another company whose
//      receiver never answers, each fed as many: the healthy endpoint's commit → receiver p99 in
//      both, and their ratio (isolation_p99_ratio). The worker runs with WEBHOOK_TIMEOUT_MS=5000
//      so that its shutdown after the phase does not wait 15 s for the hung requests.
// Also prints the share of the machine's CPU time the host stole for other guests during the run
// (`host_steal_pct`, from /proc/stat): on a shared virtual machine, runs with more than a few
// percent measure the neighbours too. And the CPU time per delivery of the worker over the burst
// (`worker_cpu_ms_per_delivery`, from /proc/<pid>/stat) and of the bare sender over its run
// (`baseline_cpu_ms_per_delivery`, its own process; both with V8's background threads): their
// quotient is what `ratio` would be were both bound by their CPU alone, the worker never
// waiting on a round trip. Ends with one line `RESULT {json}`. Needs the local
// PostgreSQL and Redis; creates and drops its own database and Redis prefix. BENCH_PROFILE=1
// instead profiles the worker (`--cpu-prof`) through warm-up and burst, ends it after the burst,
// and prints the burst's rate, how much of the profile the worker was idle and where its busy
// time went (no latency or baseline phase).
import { fork, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Pool } from 'undici';
import { generateApiKey } from '../dist/platform/auth/api-key-token.js';
import { dropDatabase, migrate } from '../dist/platform/database/database.js';
import { AppConfig } from '../dist/platform/config/app-config.js';
import { decodeSecretsKey, sealWith } from '../dist/platform/crypto/secrets-cipher.js';
import { renderEnvelope } from '../dist/webhooks/delivery/webhook-envelope.js';
import { signWebhook } from '../dist/webhooks/delivery/webhook-signature.js';
import { CURRENT_API_VERSION } from '../dist/platform/versioning/api-version.js';
import { cpuMs } from './process-cpu.js';
import { printShares, summarise } from './profile-summary.js';
import { deleteRedisPrefix } from './redis-prefix.js';

if (!process.execArgv.some((argument) => argument.endsWith('set-v8-flags.js'))) {
  throw new Error('The bare sender runs in this process, with the V8 flags the worker sets: run `npm run bench:webhooks`.');
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BURST = Number(process.env.BENCH_BURST ?? 5000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ISOLATION_RATE = Number(process.env.BENCH_ISOLATION_RATE ?? 50);
const ISOLATION_SECONDS = Number(process.env.BENCH_ISOLATION_SECONDS ?? 20);
const DEAD_ENDPOINTS = 5;
const WARM_UP = 200;
const TIMEOUT_MS = 5000;
const PROFILE_DIR = process.env.BENCH_PROFILE ? mkdtempSync(join(tmpdir(), 'bench-webhooks-profile-')) : undefined;
// The service never has more requests in flight to one endpoint than its cap; the baseline sends at the same.
const CONCURRENCY = new AppConfig().WEBHOOK_ENDPOINT_CONCURRENCY;
const run = randomBytes(4).toString('hex');
const DATABASE_URL = `postgres://postgres@127.0.0.1:5432/integrations_bench_${run}`;
const REDIS_PREFIX = `oh-bench-${run}`;
const SECRETS_KEY = randomBytes(32).toString('base64');
const env = {
  ...process.env,
  DATABASE_URL,
  REDIS_PREFIX,
  SECRETS_KEY,
  // The default level, as in production: the spec's one line per attempt is part of the measured cost.
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  APP_ROLES: 'worker',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
  WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** The machine's CPU time so far, and how much of it the host took for others (steal), from /proc/stat. */
function cpuTimes() {
  const [user, nice, system, idle, iowait, irq, softirq, steal = 0] = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  return { total: user + nice + system + idle + iowait + irq + softirq + steal, steal };
}

/** The share (%) of the machine's CPU time since `from` (cpuTimes) that the host stole. */
function stealPercentSince(from) {
  const to = cpuTimes();
  return Number(((100 * (to.steal - from.steal)) / Math.max(1, to.total - from.total)).toFixed(1));
}

function ask(child, message, key) {
  return new Promise((resolve) => {
    const onMessage = (reply) => {
      if (reply[key] === undefined) return;
      child.off('message', onMessage);
      resolve(reply[key]);
    };
    child.on('message', onMessage);
    child.send(message);
  });
}

async function waitForCount(receiver, count, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await ask(receiver, 'count', 'count')) >= count) return;
    if (Date.now() > deadline) throw new Error(`receiver got fewer than ${count} deliveries in ${timeoutMs} ms`);
    await sleep(5);
  }
}

/** A company, an `int:*` key and `urls.length` endpoints subscribed to fin.invoice.created. */
async function seed(db, name, urls) {
  const [{ id: tenantId }] = (await db.query(`INSERT INTO tenants (slug, name) VALUES ($1, 'Bench') RETURNING id`, [`bench-${name}-${run}`])).rows;
  const key = generateApiKey();
  const [{ id: keyId }] = (
    await db.query(`INSERT INTO api_keys (tenant_id, prefix, secret_hash, scopes) VALUES ($1, $2, $3, '{int:*}') RETURNING id`, [tenantId, key.prefix, key.secretHash])
  ).rows;
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  for (const url of urls) {
    await db.query(
      `INSERT INTO webhook_endpoints (tenant_id, api_key_id, name, url, event_types, secret_ciphertext) VALUES ($1, $2, 'bench', $3, '{fin.invoice.created}', $4)`,
      [tenantId, keyId, url, sealWith(decodeSecretsKey(SECRETS_KEY), secret)],
    );
  }
  return { tenantId, secret };
}

/**
 * Commits `rate` healthy events a second for `seconds`, each in its own transaction, and as
 * many for `noisyTenantId` (fanned out to its endpoints) when given; returns the healthy
 * events' commit → receiver latencies, sorted.
 */
async function paced(db, receiver, tenantId, rate, seconds, noisyTenantId) {
  const committedAt = new Map();
  const total = rate * seconds;
  const start = Date.now();
  for (let n = 0; n < total; n++) {
    const due = start + (n * 1000) / rate;
    if (due > Date.now()) await sleep(due - Date.now());
    if (noisyTenantId) await commitEvents(db, noisyTenantId, [envelope(n)]);
    const event = envelope(n);
    await commitEvents(db, tenantId, [event]);
    committedAt.set(event.id, Date.now());
  }
  const arrived = async () => (await ask(receiver, 'arrivals', 'arrivals')).filter(([id]) => committedAt.has(id));
  const deadline = Date.now() + 120_000;
  while ((await arrived()).length < total) {
    if (Date.now() > deadline) throw new Error(`the healthy endpoint got fewer than ${total} deliveries`);
    await sleep(5);
  }
  const latencies = (await arrived()).map(([id, at]) => Math.max(0, at - committedAt.get(id))).sort((a, b) => a - b);
  receiver.send('reset');
  return latencies;
}

function envelope(n) {
  return { id: randomUUID(), type: 'fin.invoice.created', created_at: new Date().toISOString(), data: { id: randomUUID(), number: null, total_minor: 1000 + n, currency: 'EUR' } };
}

function envelopes(count) {
  return Array.from({ length: count }, (_, n) => envelope(n));
}

/** Commits `events` in one transaction (one multi-row INSERT). */
async function commitEvents(db, tenantId, events) {
  await db.query(
    `INSERT INTO events (id, tenant_id, type, envelope) SELECT id, $1, 'fin.invoice.created', envelope FROM unnest($2::uuid[], $3::jsonb[]) AS x(id, envelope)`,
    [tenantId, events.map((event) => event.id), events.map((event) => JSON.stringify(event))],
  );
}

/**
 * Signs and POSTs `count` envelopes at the per-endpoint cap, after the same 200-delivery warm-up
 * as the service's. Answers deliveries/s and this process's CPU ms per delivery.
 */
async function baseline(url, secret, count) {
  const target = new URL(url);
  const pool = new Pool(target.origin);
  const send = async (batch) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < batch.length) {
          const event = batch[next++];
          const body = renderEnvelope(event, CURRENT_API_VERSION);
          const headers = { 'content-type': 'application/json', 'idempotency-key': event.id, ...signWebhook([secret], event.id, Math.floor(Date.now() / 1000), body) };
          const answer = await pool.request({ method: 'POST', path: target.pathname, headers, body });
          await answer.body.dump();
        }
      }),
    );
  };
  await send(envelopes(WARM_UP));
  // Made before the clock starts, as the service's burst is committed before its clock starts.
  const burst = envelopes(count);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await send(burst);
  const seconds = (performance.now() - started) / 1000;
  const { user, system } = process.cpuUsage(cpuBefore);
  await pool.close();
  return { perSecond: count / seconds, cpuMsPerDelivery: (user + system) / 1000 / count };
}

async function main() {
  const cpuAtStart = cpuTimes();
  await migrate(DATABASE_URL);
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  const receiver = fork(fileURLToPath(new URL('./webhook-receiver.js', import.meta.url)), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [{ port }] = await once(receiver, 'message');
  const url = `http://localhost:${port}/hook`;
  const { tenantId, secret } = await seed(db, 'healthy', [url]);
  const dead = await seed(
    db,
    'dead',
    Array.from({ length: DEAD_ENDPOINTS }, (_, n) => `http://localhost:${port}/dead/${n}`),
  );
  const profileArgs = PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR, '--import', './bench/exit-on-message.js'] : [];
  const worker = spawn(process.execPath, [...profileArgs, 'dist/main.js'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const exited = once(worker, 'exit');
  try {
    // Warm-up: the worker is up, connected and its connection pool to the receiver is open.
    await commitEvents(db, tenantId, envelopes(WARM_UP));
    await waitForCount(receiver, WARM_UP, 60_000);
    receiver.send('reset');

    const burst = envelopes(BURST);
    const workerCpuAtBurst = cpuMs(worker.pid);
    // The clock starts at the commit, as the header says: until then the worker cannot see the
    // events, and the time their one insert takes is the bench's work, not the worker's.
    const insertStart = Date.now();
    await commitEvents(db, tenantId, burst);
    const burstStart = Date.now();
    const insertMs = burstStart - insertStart;
    await waitForCount(receiver, BURST);
    const lastArrival = Math.max(...(await ask(receiver, 'arrivals', 'arrivals')).map(([, at]) => at));
    const deliveriesPerSecond = BURST / ((lastArrival - burstStart) / 1000);
    const workerCpuMsPerDelivery = (cpuMs(worker.pid) - workerCpuAtBurst) / BURST;
    receiver.send('reset');
    if (PROFILE_DIR) {
      worker.send('exit');
      await exited;
      const file = join(PROFILE_DIR, readdirSync(PROFILE_DIR).find((name) => name.endsWith('.cpuprofile')));
      console.log(`service: ${Math.round(deliveriesPerSecond)} deliveries/s (one worker, ${BURST} events, profiled)`);
      const { idle, top } = summarise(file, 25);
      console.log(`worker profile ${file}: idle ${(idle * 100).toFixed(0)} % of the time; self time, share of busy time:`);
      printShares(top);
      return;
    }

    const latencies = await paced(db, receiver, tenantId, RATE, SECONDS);
    const total = RATE * SECONDS;

    const { perSecond: baselinePerSecond, cpuMsPerDelivery: baselineCpuMsPerDelivery } = await baseline(url, secret, BURST);

    const alone = await paced(db, receiver, tenantId, ISOLATION_RATE, 10);
    const noisy = await paced(db, receiver, tenantId, ISOLATION_RATE, ISOLATION_SECONDS, dead.tenantId);

    const result = {
      deliveries_per_s: Math.round(deliveriesPerSecond),
      baseline_deliveries_per_s: Math.round(baselinePerSecond),
      ratio: Number((deliveriesPerSecond / baselinePerSecond).toFixed(3)),
      p50_ms: percentile(latencies, 50),
      p99_ms: percentile(latencies, 99),
      burst_events: BURST,
      burst_insert_ms: insertMs,
      latency_events: total,
      rate_per_s: RATE,
      concurrency: CONCURRENCY,
      isolation_p99_alone_ms: percentile(alone, 99),
      isolation_p99_noisy_ms: percentile(noisy, 99),
      isolation_p99_ratio: Number((percentile(noisy, 99) / Math.max(1, percentile(alone, 99))).toFixed(2)),
      host_steal_pct: stealPercentSince(cpuAtStart),
      worker_cpu_ms_per_delivery: Number(workerCpuMsPerDelivery.toFixed(3)),
      baseline_cpu_ms_per_delivery: Number(baselineCpuMsPerDelivery.toFixed(3)),
    };
    console.log(`service: ${result.deliveries_per_s} deliveries/s (one worker, ${BURST} events, from their commit: their insert took ${insertMs} ms before it); baseline undici sign+POST: ${result.baseline_deliveries_per_s}/s; ratio ${result.ratio}`);
    console.log(`commit → receiver at ${RATE} events/s for ${SECONDS} s: p50 ${result.p50_ms} ms, p99 ${result.p99_ms} ms`);
    console.log(
      `isolation at ${ISOLATION_RATE} events/s: healthy p99 alone ${result.isolation_p99_alone_ms} ms, beside ${DEAD_ENDPOINTS} hung endpoints ` +
        `(${ISOLATION_RATE} events/s each, WEBHOOK_TIMEOUT_MS=${TIMEOUT_MS}) for ${ISOLATION_SECONDS} s ${result.isolation_p99_noisy_ms} ms: ratio ${result.isolation_p99_ratio}`,
    );
    console.log(
      `CPU per delivery: the worker ${result.worker_cpu_ms_per_delivery} ms over the burst, the bare sender ${result.baseline_cpu_ms_per_delivery} ms: ` +
        `were both bound by their CPU alone, ratio would be ${(result.baseline_cpu_ms_per_delivery / result.worker_cpu_ms_per_delivery).toFixed(2)}`,
    );
    console.log(`CPU stolen by the host over the run: ${result.host_steal_pct} % (a shared virtual machine; above a few percent, the run measures the host's other guests too)`);
    console.log(`RESULT ${JSON.stringify(result)}`);
  } finally {
    worker.kill('SIGTERM');
    await exited;
    receiver.send('stop');
    await db.end();
    await dropDatabase(DATABASE_URL);
    await deleteRedisPrefix(REDIS_PREFIX);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
