import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { DeliveryGate, type Grant } from '../../src/webhooks/delivery/gate/delivery-gate.js';
import { testConfig } from '../support/config.js';
import { type TcpProxy, tcpProxy } from '../support/tcp-proxy.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The delivery gate against the real Redis, two instances standing for two worker processes,
 * on an injected clock: every call is given its `now`.
 */
describe('delivery gate (Redis)', () => {
  const T0 = 1_800_000_000_000;
  let prefix = 0;
  const gates: DeliveryGate[] = [];
  /** Two gates on one fresh key prefix: two workers sharing one Redis. */
  function twoWorkers(overrides: Record<string, string> = {}): [DeliveryGate, DeliveryGate] {
    const config = testConfig({
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}-gate-${(prefix += 1)}`,
      WEBHOOK_ENDPOINT_CONCURRENCY: '3',
      WEBHOOK_CIRCUIT_FAILURES: '5',
      WEBHOOK_CIRCUIT_COOLDOWN_MS: '1000',
      WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS: '3000',
      ...overrides,
    });
    const pair: [DeliveryGate, DeliveryGate] = [new DeliveryGate(config), new DeliveryGate(config)];
    gates.push(...pair);
    return pair;
  }
  afterAll(() => Promise.all(gates.map((gate) => gate.onApplicationShutdown())));

  const offer = (gate: DeliveryGate, endpointId: string, count: number, now = T0) =>
    gate.enqueue(
      Array.from({ length: count }, () => ({ endpointId, deliveryId: randomUUID(), dueMs: now })),
      now,
    );
  const release = (gate: DeliveryGate, grants: Grant[], verdict: 'up' | 'down' | 'none', now: number, holdUntilMs: number | null = null) =>
    gate.release(grants.map((grant) => ({ ...grant, verdict, holdUntilMs })), 0, now);

  it('refuses to hold an id that names no delivery', async () => {
    const [a] = twoWorkers();
    // Before: a retry offered "" (TypeORM's [rows, count] read as rows), granted and failed every 5 s for ever.
    await expect(a.enqueue([{ endpointId: randomUUID(), deliveryId: '', dueMs: T0 }], T0)).rejects.toThrow(/not a delivery to offer/);
    expect((await a.take(10, T0)).grants).toEqual([]);
  });

  it('caps the slots of one endpoint over both workers, and hands a freed slot to either', async () => {
    const [a, b] = twoWorkers();
    const endpoint = randomUUID();
    expect(await offer(a, endpoint, 10)).toBe(10);

    const first = await a.take(100, T0);
    const second = await b.take(100, T0);
    expect(first.grants).toHaveLength(3);
    expect(second.grants).toEqual([]);
    expect(await a.backlog(endpoint)).toEqual({ waiting: 7, inFlight: 3 });

    await release(a, first.grants.slice(0, 2), 'up', T0 + 1);
    const third = await b.take(100, T0 + 2);
    expect(third.grants).toHaveLength(2);
    expect(new Set([...first.grants, ...third.grants].map((grant) => grant.deliveryId)).size).toBe(5);
    expect(await b.backlog(endpoint)).toEqual({ waiting: 5, inFlight: 3 });
  });

  it('serves endpoints in turn: a deep backlog on one does not delay the next delivery of another', async () => {
    const [a] = twoWorkers({ WEBHOOK_ENDPOINT_CONCURRENCY: '1000' });
    const busy = randomUUID();
    const quiet = randomUUID();
    await offer(a, busy, 5000, T0);
    await offer(a, quiet, 1, T0 + 5);
    // Each visit gives an endpoint at most its cap's worth, so one call of 1,010 slots reaches the quiet one.
    const taken = await a.take(1010, T0 + 5);
    expect(taken.grants.filter((grant) => grant.endpointId === quiet)).toHaveLength(1);
  });

  it('frees the slots of a worker that died once they expire, and offers their deliveries again', async () => {
    const [a, b] = twoWorkers({ WEBHOOK_TIMEOUT_MS: '1000' });
    const endpoint = randomUUID();
    await offer(a, endpoint, 3);
    const lost = await a.take(3, T0);
    expect(lost.grants).toHaveLength(3);
    expect((await b.take(3, T0 + 5000)).grants).toEqual([]);
    // Receiver timeout + 10 s margin later, the slots are free and the same deliveries are due again.
    const again = await b.take(3, T0 + 11_001);
    expect(again.grants.map((grant) => grant.deliveryId).sort()).toEqual(lost.grants.map((grant) => grant.deliveryId).sort());
  });

  it('frees the slot of a worker that died at its expiry, although what else its endpoint has waiting is due later', async () => {
    const [a, b] = twoWorkers({ WEBHOOK_TIMEOUT_MS: '1000' });
    const endpoint = randomUUID();
    const lost = randomUUID();
    await a.enqueue([{ endpointId: endpoint, deliveryId: lost, dueMs: T0 }], T0);
    expect((await a.take(1, T0)).grants.map((grant) => grant.deliveryId)).toEqual([lost]);
    // The worker dies holding it; another delivery of the endpoint is a retry due in an hour.
    await b.enqueue([{ endpointId: endpoint, deliveryId: randomUUID(), dueMs: T0 + 3_600_000 }], T0 + 1);
    // The slot expires the receiver timeout and 10 s after it was taken: its delivery is due again
    // then, not an hour later (the sweep cannot offer it meanwhile: the gate holds it in a slot).
    expect((await b.take(10, T0 + 10_999)).grants).toEqual([]);
    expect((await b.take(10, T0 + 11_000)).grants.map((grant) => grant.deliveryId)).toEqual([lost]);
  });

  it('opens the circuit after 5 failures in a row, probes once after the cool-down, reopens with twice the cool-down, closes on success', async () => {
    const [a, b] = twoWorkers({ WEBHOOK_ENDPOINT_CONCURRENCY: '5' });
    const endpoint = randomUUID();
    await offer(a, endpoint, 20);

    const five = (await a.take(5, T0)).grants;
    const failures = five.slice(0, 4);
    expect((await release(a, failures, 'down', T0 + 10)).changes).toEqual([]);
    expect((await release(a, [five[4]], 'down', T0 + 20)).changes).toEqual([{ endpointId: endpoint, state: 'open' }]);
    expect((await a.circuits([endpoint], T0 + 20)).get(endpoint)).toEqual({ state: 'open', openedAt: new Date(T0 + 20), nextProbeAt: new Date(T0 + 1020), heldUntil: null });
    expect(await a.openCircuits()).toBeGreaterThanOrEqual(1);
    // Once the cool-down is over the next attempt is let through as the probe: the record says half-open before it is granted.
    expect((await a.circuits([endpoint], T0 + 1020)).get(endpoint)!.state).toBe('half_open');

    // Open: nothing is granted, to either worker, until the cool-down is over.
    expect((await a.take(10, T0 + 500)).grants).toEqual([]);
    const open = await b.take(10, T0 + 500);
    expect(open.grants).toEqual([]);
    expect(open.nextAtMs).toBe(T0 + 1020);

    // Half-open: exactly one probe, whoever asks.
    const probe = await b.take(10, T0 + 1020);
    expect(probe.grants).toEqual([{ endpointId: endpoint, deliveryId: expect.any(String), probe: true }]);
    expect(probe.changes).toEqual([{ endpointId: endpoint, state: 'half_open' }]);
    expect((await a.take(10, T0 + 1030)).grants).toEqual([]);

    // The probe fails: open again, cool-down doubled; opened_at stays the start of the outage.
    expect((await release(b, probe.grants, 'down', T0 + 1100)).changes).toEqual([{ endpointId: endpoint, state: 'open' }]);
    expect((await a.circuits([endpoint], T0 + 1100)).get(endpoint)).toEqual({ state: 'open', openedAt: new Date(T0 + 20), nextProbeAt: new Date(T0 + 3100), heldUntil: null });
    expect((await a.take(10, T0 + 3000)).grants).toEqual([]);

    const second = await a.take(10, T0 + 3100);
    expect(second.grants).toHaveLength(1);
    expect(second.grants[0].probe).toBe(true);
    // The probe succeeds: closed, and the backlog drains at the cap.
    expect((await release(a, second.grants, 'up', T0 + 3200)).changes).toEqual([{ endpointId: endpoint, state: 'closed' }]);
    expect((await a.circuits([endpoint], T0 + 3200)).get(endpoint)).toEqual({ state: 'closed', openedAt: null, nextProbeAt: null, heldUntil: null });
    const drained = await b.take(10, T0 + 3300);
    expect(drained.grants).toHaveLength(5);
    expect(drained.grants.every((grant) => !grant.probe)).toBe(true);
  });

  it('gives an endpoint in a run of failures one request at a time, and its full cap again after an answer below 500', async () => {
    const [a, b] = twoWorkers();
    const endpoint = randomUUID();
    await offer(a, endpoint, 10);
    const three = (await a.take(100, T0)).grants;
    expect(three).toHaveLength(3);

    // The first failure: the two still in flight are all it gets, on either worker.
    await release(a, [three[0]], 'down', T0 + 1);
    expect((await b.take(100, T0 + 2)).grants).toEqual([]);
    await release(a, [three[1]], 'down', T0 + 3);
    expect((await b.take(100, T0 + 4)).grants).toEqual([]);
    // None left in flight: one more, not three.
    await release(a, [three[2]], 'down', T0 + 5);
    const single = (await b.take(100, T0 + 6)).grants;
    expect(single).toHaveLength(1);
    expect((await a.take(100, T0 + 7)).grants).toEqual([]);
    expect(await a.backlog(endpoint)).toEqual({ waiting: 6, inFlight: 1 });

    // It answers: the run is over and the cap is 3 again.
    await release(b, single, 'up', T0 + 8);
    expect((await a.take(100, T0 + 9)).grants).toHaveLength(3);
  });

  it('caps the cool-down, and a probe that sent nothing lets another probe go', async () => {
    const [a] = twoWorkers({ WEBHOOK_CIRCUIT_FAILURES: '1' });
    const endpoint = randomUUID();
    await offer(a, endpoint, 10);
    let now = T0;
    await release(a, (await a.take(1, now)).grants, 'down', now);
    for (const expected of [2000, 3000, 3000]) {
      const probe = (await a.take(1, (now = (await a.circuits([endpoint])).get(endpoint)!.nextProbeAt!.getTime()))).grants;
      await release(a, probe, 'down', now);
      expect((await a.circuits([endpoint])).get(endpoint)!.nextProbeAt!.getTime() - now).toBe(expected);
    }
    now = (await a.circuits([endpoint])).get(endpoint)!.nextProbeAt!.getTime();
    const refused = (await a.take(1, now)).grants;
    expect((await release(a, refused, 'none', now)).changes).toEqual([]);
    expect((await a.take(1, now + 1)).grants).toEqual([{ endpointId: endpoint, deliveryId: expect.any(String), probe: true }]);
  });

  it("holds the endpoint back until a receiver's Retry-After, and only that endpoint", async () => {
    const [a, b] = twoWorkers();
    const held = randomUUID();
    const other = randomUUID();
    await offer(a, held, 5);
    const [first] = (await a.take(1, T0)).grants;
    await offer(a, other, 5);
    await release(a, [first], 'up', T0 + 10, T0 + 2000);
    // The endpoint record shows the hold while it is ahead (circuit.held_until), the circuit itself closed.
    const shown = await b.circuits([held, other], T0 + 1999);
    expect(shown.get(held)).toEqual({ state: 'closed', openedAt: null, nextProbeAt: null, heldUntil: new Date(T0 + 2000) });
    expect(shown.get(other)!.heldUntil).toBeNull();
    expect((await b.circuits([held], T0 + 2000)).get(held)!.heldUntil).toBeNull();
    const during = await b.take(100, T0 + 1999);
    expect(during.grants.every((grant) => grant.endpointId === other)).toBe(true);
    expect(during.grants.length).toBeGreaterThan(0);
    expect((await a.take(100, T0 + 2000)).grants.filter((grant) => grant.endpointId === held)).toHaveLength(3);
  });

  it('says, when it frees a slot, when the next waiting delivery is due, as a take does: the worker needs no take of its own to know', async () => {
    const [a] = twoWorkers();
    const endpointId = randomUUID();
    await offer(a, endpointId, 4);
    const [first] = (await a.take(1, T0)).grants;
    // A receiver's Retry-After holds the other three back: nothing granted, and when to ask again.
    const held = await a.release([{ ...first, verdict: 'up', holdUntilMs: T0 + 2000 }], 10, T0 + 10);
    expect(held).toEqual({ grants: [], changes: [], nextAtMs: T0 + 2000 });
    const rest = (await a.take(10, T0 + 2000)).grants;
    expect(rest).toHaveLength(3);
    const emptied = await a.release(rest.map((grant) => ({ ...grant, verdict: 'up' as const, holdUntilMs: null })), 10, T0 + 2001);
    expect(emptied).toEqual({ grants: [], changes: [], nextAtMs: null });
  });

  it('offers and takes in one call: the offering worker takes what it has room for, and the others are woken only for what it left', async () => {
    const [a, b] = twoWorkers();
    const endpoint = randomUUID();
    const channel = `${process.env.REDIS_PREFIX}-gate-${prefix}:wh:wake`;
    const listener = new Redis(process.env.REDIS_URL!);
    const messages: string[] = [];
    listener.on('message', (_channel: string, message: string) => messages.push(message));
    try {
      await listener.subscribe(channel);
      const deliveries = (count: number) => Array.from({ length: count }, () => ({ endpointId: endpoint, deliveryId: randomUUID() }));

      const all = await a.offer(deliveries(2), 10, T0);
      expect(all).toMatchObject({ added: 2, changes: [] });
      expect(all.grants.map((grant) => grant.endpointId)).toEqual([endpoint, endpoint]);
      // Nothing is left due now: the endpoint is looked at next when a slot would expire.
      expect(all.nextAtMs).toBeGreaterThan(T0);
      // Published in order on one channel: once this offer's wake-up is in, the first one's would be too.
      const left = await a.offer(deliveries(3), 0, T0 + 1);
      expect(left).toMatchObject({ added: 3, grants: [] });
      await waitFor(async () => messages.length > 0, 5000, 'the wake-up for what was left');
      expect(messages).toHaveLength(1);

      // The cap (3) leaves one slot: taken by the offer, and the two still waiting are the others' turn.
      const some = await b.offer(deliveries(1), 10, T0 + 2);
      expect(some.grants).toHaveLength(1);
      expect(await a.backlog(endpoint)).toEqual({ waiting: 3, inFlight: 3 });

      // An endpoint held back by a Retry-After: an offer that takes learns when it is due and wakes
      // no one; one that takes nothing (an API replay, a retry put back) wakes the workers as before.
      const held = randomUUID();
      const [grant] = (await a.offer([{ endpointId: held, deliveryId: randomUUID() }], 1, T0 + 3)).grants;
      await a.release([{ ...grant, verdict: 'up', holdUntilMs: T0 + 60_000 }], 0, T0 + 4);
      expect(await a.offer([{ endpointId: held, deliveryId: randomUUID() }], 10, T0 + 5)).toMatchObject({ added: 1, grants: [] });
      await a.offer([{ endpointId: held, deliveryId: randomUUID() }], 0, T0 + 6);
      await waitFor(async () => messages.length > 1, 5000, 'the wake-up for the offer that took nothing');
      expect(messages).toHaveLength(2);
    } finally {
      listener.disconnect();
    }
  });

  it('forgets an endpoint: its circuit and hold dropped, what waits is served at once and the workers woken', async () => {
    const [a, b] = twoWorkers({ WEBHOOK_CIRCUIT_FAILURES: '1', WEBHOOK_CIRCUIT_COOLDOWN_MS: '60000', WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS: '600000' });
    const endpoint = randomUUID();
    await offer(a, endpoint, 4);
    await release(a, (await a.take(1, T0)).grants, 'down', T0, T0 + 120_000);
    expect((await a.circuits([endpoint], T0 + 1)).get(endpoint)).toMatchObject({ state: 'open', heldUntil: new Date(T0 + 120_000) });
    expect((await b.take(10, T0 + 1)).grants).toEqual([]);

    const woken = new Promise<void>((resolve) => b.onWake(resolve));
    const channel = `${process.env.REDIS_PREFIX}-gate-${prefix}:wh:wake`;
    const redis = new Redis(process.env.REDIS_URL!);
    try {
      await waitFor(async () => Number(((await redis.pubsub('NUMSUB', channel)) as [string, number])[1]) > 0, 5000, 'the wake-up subscription');
    } finally {
      redis.disconnect();
    }
    await a.forget(endpoint, { sameReceiver: true }, T0 + 2);
    await woken;
    expect((await a.circuits([endpoint], T0 + 2)).get(endpoint)).toEqual({ state: 'closed', openedAt: null, nextProbeAt: null, heldUntil: null });
    // Served now at the full cap, not after the minute's cool-down or the two minutes' hold.
    expect((await b.take(10, T0 + 3)).grants).toHaveLength(3);
  });

  it('subscribes to wake-ups once Redis is back when it was away at the start, however long', async () => {
    const proxy = await tcpProxy({ host: new URL(process.env.REDIS_URL!).hostname, port: Number(new URL(process.env.REDIS_URL!).port || 6379) });
    const [gate] = twoWorkers({ REDIS_URL: `redis://127.0.0.1:${proxy.port}` });
    const redis = new Redis(process.env.REDIS_URL!);
    try {
      let woken = 0;
      gate.onWake(() => (woken += 1));
      // Past the 20 retries of a command after which ioredis used to give the SUBSCRIBE up.
      await waitFor(async () => proxy.refusals() > 21, 30_000, 'the reconnects');
      proxy.up();
      const channel = `${process.env.REDIS_PREFIX}-gate-${prefix}:wh:wake`;
      await waitFor(async () => Number(((await redis.pubsub('NUMSUB', channel)) as [string, number])[1]) > 0, 10_000, 'the wake-up subscription');
      await redis.publish(channel, 'wake');
      await waitFor(async () => woken > 0, 5000, 'the wake-up');
    } finally {
      redis.disconnect();
      await proxy.close();
    }
  }, 60_000);

  /**
   * A worker whose Redis is reached through a proxy the test controls, beside one reaching it
   * directly, on one prefix. Their slots last 70 s: only their return, not their expiry, can free
   * them within a test.
   */
  async function behindProxy(): Promise<{ proxy: TcpProxy; direct: DeliveryGate; proxied: DeliveryGate }> {
    const redisUrl = new URL(process.env.REDIS_URL!);
    const proxy = await tcpProxy({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
    proxy.up();
    const [direct] = twoWorkers({ WEBHOOK_TIMEOUT_MS: '60000' });
    const proxied = new DeliveryGate(testConfig({ REDIS_PREFIX: `${process.env.REDIS_PREFIX}-gate-${prefix}`, REDIS_URL: `redis://127.0.0.1:${proxy.port}`, WEBHOOK_ENDPOINT_CONCURRENCY: '3', WEBHOOK_TIMEOUT_MS: '60000' }));
    gates.push(proxied);
    return { proxy, direct, proxied };
  }

  it('takes back the slots granted in an answer that never reached its worker, instead of holding them until they expire', async () => {
    const { proxy, direct, proxied: late } = await behindProxy();
    try {
      const endpoint = randomUUID();
      await offer(direct, endpoint, 3, Date.now());
      expect(await late.backlog(endpoint)).toEqual({ waiting: 3, inFlight: 0 });

      // Redis runs the take, but its answer comes after the gate's 2 s command timeout.
      proxy.holdAnswers();
      await expect(late.take(3)).rejects.toThrow(/timed out/);
      expect(await direct.backlog(endpoint)).toEqual({ waiting: 0, inFlight: 3 });
      proxy.release();

      // Before: held by no one until they expired.
      await waitFor(async () => (await direct.backlog(endpoint)).waiting === 3, 10_000, 'the slots back');
      expect(await direct.backlog(endpoint)).toEqual({ waiting: 3, inFlight: 0 });
      expect((await direct.take(3)).grants).toHaveLength(3);
    } finally {
      await proxy.close();
    }
  }, 30_000);

  it('releases again what a release lost with its connection was to free, counting its verdict once', async () => {
    const { proxy, direct, proxied: cut } = await behindProxy();
    try {
      const endpoint = randomUUID();
      await offer(direct, endpoint, 3, Date.now());
      const { grants } = await cut.take(3);
      expect(grants).toHaveLength(3);

      // The release is written, then its connection is cut before Redis reads it: it never runs, and is not sent again.
      proxy.stall();
      const lost = cut.release(grants.map((grant) => ({ ...grant, verdict: 'down' as const, holdUntilMs: null })));
      await new Promise((resolve) => setImmediate(resolve));
      proxy.down();
      await expect(lost).rejects.toThrow();
      expect(await direct.backlog(endpoint)).toEqual({ waiting: 0, inFlight: 3 });
      proxy.up();

      // Before: held until they expired, 70 s here. Freed, the deliveries wait again, due now, as after an expiry.
      await waitFor(async () => (await direct.backlog(endpoint)).waiting === 3, 10_000, 'the deliveries back');
      expect(await direct.backlog(endpoint)).toEqual({ waiting: 3, inFlight: 0 });
      // Three failures in a row, counted once each: below the threshold of five, the circuit stays closed.
      expect((await direct.circuits([endpoint])).get(endpoint)).toMatchObject({ state: 'closed' });
      const redis = new Redis(process.env.REDIS_URL!);
      try {
        expect(await redis.hget(`${process.env.REDIS_PREFIX}-gate-${prefix}:wh:ep:${endpoint}`, 'failures')).toBe('3');
      } finally {
        redis.disconnect();
      }
    } finally {
      await proxy.close();
    }
  }, 30_000);

  it('mutes the slots in flight (another URL, or an endpoint no longer attempted): they still count against the cap, but what they meet opens no circuit and holds nothing', async () => {
    const [a, b] = twoWorkers({ WEBHOOK_CIRCUIT_FAILURES: '2', WEBHOOK_ENDPOINT_CONCURRENCY: '4' });
    const endpoint = randomUUID();
    await offer(a, endpoint, 12);
    const toOldUrl = (await a.take(4, T0)).grants;
    expect(toOldUrl).toHaveLength(4);
    await a.forget(endpoint, {}, T0 + 1);
    // Before: the new URL got a cap of its own at once, so each change of URL (or pause and
    // resume) sent the cap again beside the attempts still hanging: 200 in flight to one endpoint.
    expect((await b.take(10, T0 + 2)).grants).toEqual([]);
    await a.forget(endpoint, {}, T0 + 3);
    expect((await b.take(10, T0 + 4)).grants).toEqual([]);

    const late = await release(a, toOldUrl.slice(0, 2), 'down', T0 + 5, T0 + 300_000);
    expect(late.changes).toEqual([]);
    expect((await a.circuits([endpoint], T0 + 5)).get(endpoint)).toEqual({ state: 'closed', openedAt: null, nextProbeAt: null, heldUntil: null });
    // Their slots freed: the new receiver gets them, not held back by the old one's Retry-After.
    const toNewUrl = (await b.take(10, T0 + 6)).grants;
    expect(toNewUrl).toHaveLength(2);
    expect(await a.backlog(endpoint)).toEqual({ waiting: 6, inFlight: 4 });
    // What the new receiver meets counts again.
    expect((await release(b, toNewUrl, 'down', T0 + 7)).changes).toEqual([{ endpointId: endpoint, state: 'open' }]);
  });

  it('lets the slots in flight speak when asked (a resume: the same receiver, attempted again): its cap and what its attempts meet still count', async () => {
    const [a] = twoWorkers({ WEBHOOK_CIRCUIT_FAILURES: '2', WEBHOOK_ENDPOINT_CONCURRENCY: '4' });
    const endpoint = randomUUID();
    await offer(a, endpoint, 8);
    const inFlight = (await a.take(4, T0)).grants;
    await a.forget(endpoint, { sameReceiver: true }, T0 + 1);
    expect((await a.take(10, T0 + 2)).grants).toEqual([]);
    expect((await release(a, inFlight.slice(0, 2), 'down', T0 + 3)).changes).toEqual([{ endpointId: endpoint, state: 'open' }]);
  });

  it('unmutes a muted slot that expired (its worker died): the same delivery, attempted again, speaks for the endpoint', async () => {
    const [a, b] = twoWorkers({ WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_CIRCUIT_FAILURES: '1' });
    const endpoint = randomUUID();
    await offer(a, endpoint, 1);
    const [lost] = (await a.take(1, T0)).grants;
    await a.forget(endpoint, {}, T0 + 1);
    const [again] = (await b.take(1, T0 + 11_001)).grants;
    expect(again.deliveryId).toBe(lost.deliveryId);
    expect((await release(b, [again], 'down', T0 + 11_002)).changes).toEqual([{ endpointId: endpoint, state: 'open' }]);
  });

  it('offers a delivery once: one already waiting or holding a slot is left as it is', async () => {
    const [a] = twoWorkers();
    const endpoint = randomUUID();
    const deliveryId = randomUUID();
    expect(await a.enqueue([{ endpointId: endpoint, deliveryId, dueMs: T0 }], T0)).toBe(1);
    expect(await a.enqueue([{ endpointId: endpoint, deliveryId, dueMs: T0 }], T0)).toBe(0);
    await a.take(1, T0);
    expect(await a.enqueue([{ endpointId: endpoint, deliveryId, dueMs: T0 }], T0)).toBe(0);
    expect(await a.backlog(endpoint)).toEqual({ waiting: 0, inFlight: 1 });
  });

  it('brings a waiting delivery forward when it is offered for an earlier time (retry now), never back', async () => {
    const [a] = twoWorkers();
    const endpoint = randomUUID();
    const deliveryId = randomUUID();
    await a.enqueue([{ endpointId: endpoint, deliveryId, dueMs: T0 + 60_000 }], T0);
    expect((await a.take(1, T0 + 1)).grants).toEqual([]);
    await a.enqueue([{ endpointId: endpoint, deliveryId, dueMs: T0 + 120_000 }], T0 + 1);
    await a.enqueue([{ endpointId: endpoint, deliveryId, dueMs: T0 + 2 }], T0 + 2);
    expect((await a.take(1, T0 + 2)).grants).toEqual([{ endpointId: endpoint, deliveryId, probe: false }]);
  });
});
