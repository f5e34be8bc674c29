// Log line benchmark (`npm run bench:logs`, builds first): the CPU one log line costs a process
// whose event loop goes idle between lines, as a worker's does between delivery attempts and an
// API's between requests. Each variant runs in its own process, its stdout a pipe read by this
// one, writing BENCH_LINES (4,000) attempt lines (`fieldLineLogger`, the worker's) 1 ms apart:
//   - none: the same loop at LOG_LEVEL=silent, the loop's own cost (timer, wake-up);
//   - per line: pino's default stdout destination, as the service had it: each line written as
//     soon as the previous write ended;
//   - gathered: the service's (`createLogger` without a destination): lines gathered into writes.
// The variants alternate, BENCH_ROUNDS (3) each; a line's cost is the variant's process CPU per
// line (all threads, from process.cpuUsage) minus none's. Ends with one line `RESULT {json}`.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const LINES = Number(process.env.BENCH_LINES ?? 4000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const VARIANTS = ['none', 'per line', 'gathered'];

async function child(variant) {
  const { pino } = await import('pino');
  const { createLogger, fieldLineLogger } = await import('../dist/platform/logging/logger.js');
  const config = { LOG_LEVEL: variant === 'none' ? 'silent' : 'info' };
  const base = variant === 'per line' ? createLogger(config, pino.destination({ dest: 1, sync: false })) : createLogger(config);
  const logger = fieldLineLogger(base, { context: 'DeliveryAttemptHandler' });
  const fields = { endpoint_id: 'e3b0c442-98fc-4c14-9afb-f4c8996fb924', delivery_id: '6f1a2b3c-98fc-4c14-9afb-f4c8996fb924', attempt: 1, status: 204, duration_ms: 2.3, outcome: 'delivered' };
  const start = process.cpuUsage();
  for (let n = 0; n < LINES; n += 1) {
    logger.info(fields, 'webhook attempt');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  const { user, system } = process.cpuUsage(start);
  process.send((user + system) / LINES);
}

async function measure(variant) {
  const worker = spawn(process.execPath, [fileURLToPath(import.meta.url), variant], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  worker.stdout.resume();
  const [[microseconds]] = await Promise.all([once(worker, 'message'), once(worker, 'exit')]);
  return microseconds;
}

async function main() {
  const samples = Object.fromEntries(VARIANTS.map((variant) => [variant, []]));
  for (let round = 0; round < ROUNDS; round += 1) for (const variant of VARIANTS) samples[variant].push(await measure(variant));
  const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const loop = mean(samples.none);
  const perLine = mean(samples['per line']) - loop;
  const gathered = mean(samples.gathered) - loop;
  for (const variant of VARIANTS) console.log(`${variant}: ${samples[variant].map((value) => value.toFixed(1)).join(', ')} µs of CPU per loop turn`);
  const result = {
    lines: LINES,
    rounds: ROUNDS,
    loop_cpu_us: Number(loop.toFixed(1)),
    per_line_cpu_us: Number(perLine.toFixed(1)),
    gathered_cpu_us: Number(gathered.toFixed(1)),
    ratio: Number((gathered / perLine).toFixed(2)),
  };
  console.log(`RESULT ${JSON.stringify(result)}`);
}

if (process.argv[2]) await child(process.argv[2]);
else await main();
