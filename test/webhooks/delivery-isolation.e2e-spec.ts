import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { Scope } from '../../src/platform/catalog/scopes.js';
import { JobQueue } from '../../src/platform/queue/job-queue.service.js';
import { QueueName } from '../../src/platform/queue/queue.types.js';
import { DeliveryGate } from '../../src/webhooks/delivery/gate/delivery-gate.js';
import { startApi, type TestApi } from '../support/api.js';
import { createEndpoint, deliveryEnv, isolatedDatabase, publishEvents } from '../support/deliveries.js';
import { type LogLine, type MainProcess, spawnMain } from '../support/main-process.js';
import { createTenantSession, type TenantSession } from '../support/tenant-session.js';
import { waitFor } from '../support/wait-for.js';

const CAP = 4;
const TIMEOUT_MS = 2000;

/**
 * A receiver that counts the requests it is answering per path, at once and at most, and
 * notes when each envelope id first arrived on each path. `answer` decides per request.
 */
async function startCountingReceiver() {
  const inFlight = new Map<string, number>();
  const receiver = {
    port: 0,
    maxInFlight: new Map<string, number>(),
    arrivals: new Map<string, number>(),
    /** Paths that never answer (until healed): the request is held open. */
    dead: (path: string) => path.startsWith('/dead'),
    /** Paths whose requests wait, unanswered, until `answerHeld`. */
    held: new Map<string, (() => void)[]>(),
    /** Answers the requests `path` holds, and holds no more. */
    answerHeld: (path: string) => {
      const waiting = receiver.held.get(path) ?? [];
      receiver.held.delete(path);
      for (const answer of waiting) answer();
    },
    answer: (_path: string): { status: number; headers?: Record<string, string> } => ({ status: 204 }),
    url: (path: string) => `http://localhost:${receiver.port}${path}`,
    arrived: (path: string, id: string) => receiver.arrivals.has(`${path} ${id}`),
  };
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '';
    request.resume();
    request.on('end', () => {
      const key = `${path} ${String(request.headers['webhook-id'])}`;
      if (!receiver.arrivals.has(key)) receiver.arrivals.set(key, Date.now());
      const current = (inFlight.get(path) ?? 0) + 1;
      inFlight.set(path, current);
      receiver.maxInFlight.set(path, Math.max(receiver.maxInFlight.get(path) ?? 0, current));
      // No longer in flight once the sender closed the connection (a worker's timeout), which is
      // seen here before any request it sent after. The response's 'close' comes later, once
      // this server has shut its side too: counting until then, a busy loop counted the next
      // request beside a gone one (5 in flight to a cap of 4, found by CI; a probe sending at
      // most 4 measured up to 7 that way).
      let counted = true;
      const done = () => {
        if (!counted) return;
        counted = false;
        inFlight.set(path, inFlight.get(path)! - 1);
        request.socket.off('end', done);
      };
      request.socket.once('end', done);
      response.on('close', done);
      if (receiver.dead(path)) return;
      const { status, headers } = receiver.answer(path);
      const held = receiver.held.get(path);
      if (held) held.push(() => response.writeHead(status, headers).end());
      else response.writeHead(status, headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  return {
    receiver,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The value of one sample line of a Prometheus text exposition (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  const line = text.split('\n').find((entry) => (entry.startsWith(`${name}{`) || entry.startsWith(`${name} `)) && wanted.every((pair) => entry.includes(pair)));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('delivery isolation: caps, circuit breaker and Retry-After over two worker processes (e2e)', () => {
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let api: TestApi;
  let db: DataSource;
  let counting: Awaited<ReturnType<typeof startCountingReceiver>>;
  let receiver: Awaited<ReturnType<typeof startCountingReceiver>>['receiver'];
  const workers: MainProcess[] = [];
  const logLines = () => workers.flatMap((worker) => worker.lines());

  beforeAll(async () => {
    database = await isolatedDatabase('isolation');
    const env = deliveryEnv('isolation', database.url, {
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_ENDPOINT_CONCURRENCY: String(CAP),
      WEBHOOK_CIRCUIT_COOLDOWN_MS: '500',
      WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS: '1000',
    });
    api = await startApi({ env });
    db = api.app.get(DataSource);
    counting = await startCountingReceiver();
    receiver = counting.receiver;
    for (let n = 0; n < 2; n++) workers.push(spawnMain({ ...env, APP_ROLES: 'worker', LOG_LEVEL: 'info', METRICS_PORT: '0' }));
    const jobs = api.app.get(JobQueue);
    await waitFor(async () => (await jobs.bullQueue(QueueName.Maintenance).getWorkersCount()) === 2, 60_000, 'two workers to start');
  }, 90_000);
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.stop()));
    await api.close();
    await counting.close();
    await database.drop();
  });

  async function endpointOf(session: TenantSession, path: string): Promise<string> {
    const { endpoint } = await createEndpoint(api.app, { tenantId: session.tenant.id, apiKeyId: session.keyId }, { url: receiver.url(path) });
    return endpoint.id;
  }

  it("one company's dead receiver costs another company nothing, and once it answers every event arrives on each of its endpoints", async () => {
    const down = await createTenantSession(api.app, { scopes: [Scope.All] });
    const healthy = await createTenantSession(api.app, { scopes: [Scope.All] });
    const deadPaths = ['/dead/1', '/dead/2', '/dead/3'];
    const deadEndpoints: string[] = [];
    for (const path of deadPaths) deadEndpoints.push(await endpointOf(down, path));
    await endpointOf(healthy, '/healthy');

    const deadEvents = await publishEvents(api.app, down.tenant.id, 'fin.invoice.created', 150);
    const latencies: number[] = [];
    for (let n = 0; n < 20; n++) {
      const [id] = await publishEvents(api.app, healthy.tenant.id, 'fin.invoice.created');
      const committed = Date.now();
      const arrived = await waitFor(async () => receiver.arrivals.get(`/healthy ${id}`), 10_000, `healthy event ${n}`);
      latencies.push(arrived - committed);
    }
    console.log(`isolation: healthy commit → receive over 20 events beside a dead receiver: max ${Math.max(...latencies)} ms`);
    expect(Math.max(...latencies)).toBeLessThanOrEqual(2000);

    // The dead endpoints' circuits open (the record shows it), and while they are open their
    // deliveries wait in the gate: no slot held, no attempt spent.
    const auth = down.auth;
    await waitFor(
      async () => {
        const states = await Promise.all(deadEndpoints.map(async (id) => (await api.http.get(`/v1/webhook_endpoints/${id}`).set('Authorization', auth)).body.circuit));
        // Open, or half-open while a probe is out.
        return states.every((circuit) => circuit.state !== 'closed' && circuit.opened_at !== null && circuit.next_probe_at !== null);
      },
      30_000,
      'the dead endpoints to show an open circuit',
    );
    const gate = api.app.get(DeliveryGate);
    for (const endpointId of deadEndpoints) {
      const [row] = await db.query(
        `SELECT count(*) FILTER (WHERE attempt = 0)::int AS unattempted, count(*) FILTER (WHERE leased_until > clock_timestamp())::int AS leased
           FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'`,
        [endpointId],
      );
      expect(row.leased).toBeLessThanOrEqual(CAP);
      // Most of the 150 were never tried: the cap, then the circuit, made them wait at attempt 0.
      expect(row.unattempted).toBeGreaterThanOrEqual(120);
      expect((await gate.backlog(endpointId)).waiting).toBeGreaterThanOrEqual(row.unattempted);
    }
    // Two workers, each with room for hundreds of attempts, never had more than the cap in flight to one endpoint.
    for (const path of deadPaths) expect(receiver.maxInFlight.get(path)).toBe(CAP);

    receiver.dead = () => false;
    await waitFor(
      async () => deadPaths.every((path) => deadEvents.every((id) => receiver.arrived(path, id))),
      60_000,
      'every event of the dead receiver on each of its endpoints',
    );
    for (const path of deadPaths) expect(receiver.maxInFlight.get(path)).toBe(CAP);
    await waitFor(
      async () => {
        const [row] = await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = ANY($1) AND status = 'delivered'`, [deadEndpoints]);
        return row.n === 450;
      },
      30_000,
      '450 delivered deliveries',
    );

    // Each circuit's closing is logged once, by the worker that closed it.
    for (const endpointId of deadEndpoints) {
      const lines = logLines().filter((line) => line.endpoint_id === endpointId && line.circuit !== undefined);
      expect(lines.filter((line) => line.circuit === 'closed')).toHaveLength(1);
      expect(lines.filter((line) => line.circuit === 'open').length).toBeGreaterThanOrEqual(1);
      expect(lines.every((line) => line.level === (line.circuit === 'open' ? 40 : 30))).toBe(true);
    }
  }, 150_000);

  it("a receiver's 429 with Retry-After holds back its endpoint's other deliveries until then", async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    await endpointOf(session, '/slow-down');
    let first = true;
    receiver.answer = (path) => {
      if (path !== '/slow-down' || !first) return { status: 204 };
      first = false;
      return { status: 429, headers: { 'retry-after': '1' } };
    };
    const [firstEvent] = await publishEvents(api.app, session.tenant.id, 'fin.invoice.created');
    const refusedAt = await waitFor(async () => receiver.arrivals.get(`/slow-down ${firstEvent}`), 10_000, 'the first request');
    const later = await publishEvents(api.app, session.tenant.id, 'fin.invoice.created', 2);
    const arrivals = await waitFor(
      async () => {
        const times = later.map((id) => receiver.arrivals.get(`/slow-down ${id}`));
        return times.every((time) => time !== undefined) && (times as number[]);
      },
      15_000,
      'the held deliveries',
    );
    // Retry-After: 1 is counted from the answer, which came after the request arrived (and this
    // file's WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS, the longest hold, is 1 s too).
    for (const arrivedAt of arrivals) expect(arrivedAt - refusedAt).toBeGreaterThanOrEqual(1000);
  }, 60_000);

  it('judges a delivery waiting for a slot by its endpoint as it is when it gets one: paused meanwhile, it is not sent', async () => {
    const session = await createTenantSession(api.app, { scopes: [Scope.All] });
    const endpointId = await endpointOf(session, '/paused-meanwhile');
    receiver.held.set('/paused-meanwhile', []);
    const events = await publishEvents(api.app, session.tenant.id, 'fin.invoice.created', CAP + 2);
    await waitFor(async () => receiver.held.get('/paused-meanwhile')?.length === CAP, 10_000, 'the cap in flight');
    await db.query(`UPDATE webhook_endpoints SET status = 'paused' WHERE id = $1`, [endpointId]);
    receiver.answerHeld('/paused-meanwhile');
    const rows = await waitFor(
      async () => {
        const settled: { status: string; error_class: string | null }[] = await db.query(
          `SELECT status, error_class FROM webhook_deliveries WHERE endpoint_id = $1 AND status <> 'pending'`,
          [endpointId],
        );
        return settled.length === CAP + 2 && settled;
      },
      10_000,
      'every delivery settled',
    );
    expect(rows.filter((row) => row.status === 'delivered')).toHaveLength(CAP);
    expect(rows.filter((row) => row.status === 'failed' && row.error_class === 'endpoint_disabled')).toHaveLength(2);
    expect(events.filter((id) => receiver.arrived('/paused-meanwhile', id))).toHaveLength(CAP);
  });

  it('exports delivery metrics and logs one line per attempt, without body, headers or secret', async () => {
    await waitFor(async () => (await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`))[0].n === 0, 15_000, 'no pending delivery');
    const attemptLines = logLines().filter((line) => line.msg === 'webhook attempt');
    expect(attemptLines.length).toBeGreaterThan(450);
    for (const line of attemptLines.slice(0, 50)) {
      expect(line).toEqual(
        expect.objectContaining({ endpoint_id: expect.any(String), delivery_id: expect.any(String), attempt: expect.any(Number), duration_ms: expect.any(Number), outcome: expect.any(String) }),
      );
      expect('status' in line || 'error_kind' in line).toBe(true);
      expect(Object.keys(line).some((member) => /body|header|secret|signature/i.test(member))).toBe(false);
    }
    expect(attemptLines.some((line: LogLine) => line.error_kind === 'timeout' && line.outcome === 'pending')).toBe(true);
    expect(attemptLines.some((line: LogLine) => line.status === 429 && line.outcome === 'pending')).toBe(true);

    const texts = await Promise.all(
      workers.map(async (worker) => {
        const port = worker.lines().find((line) => typeof line.metrics_port === 'number')!.metrics_port as number;
        return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      }),
    );
    const total = (name: string, labels: Record<string, string> = {}) => texts.reduce((sum, text) => sum + sample(text, name, labels), 0);
    expect(total('webhook_delivery_attempts_total', { outcome: '2xx' })).toBeGreaterThanOrEqual(450 + 20 + 2);
    expect(total('webhook_delivery_attempts_total', { outcome: 'timeout' })).toBeGreaterThan(0);
    expect(total('webhook_delivery_attempts_total', { outcome: '4xx' })).toBe(1);
    expect(total('webhook_delivery_attempt_duration_seconds_count', { outcome: '2xx' })).toBe(total('webhook_delivery_attempts_total', { outcome: '2xx' }));
    expect(total('webhook_delivery_first_attempt_latency_seconds_count')).toBeGreaterThanOrEqual(450 + 20 + 3);
    // Nothing is pending any more, and every circuit is closed again.
    expect(sample(texts[0], 'webhook_deliveries_oldest_pending_age_seconds')).toBe(0);
    expect(texts[0]).toMatch(/^webhook_endpoints_circuit_open 0$/m);
  });
});
