// BENCH_API_PROCESSES > 1: the service as N processes sharing one port through node:cluster
// (the primary accepts connections and hands them round-robin to the workers). Tells the bench
// the workers' process ids, so it can read their resident memory.
import cluster from 'node:cluster';
import { once } from 'node:events';

const count = Number(process.env.BENCH_API_PROCESSES);
cluster.setupPrimary({ exec: new URL('../dist/main.js', import.meta.url).pathname });
const workers = Array.from({ length: count }, () => cluster.fork());
await Promise.all(workers.map((worker) => once(worker, 'listening')));
process.send?.({ workers: workers.map((worker) => worker.process.pid) });
process.on('SIGTERM', () => {
  for (const worker of workers) worker.kill('SIGTERM');
});
