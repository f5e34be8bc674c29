import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeliveryAttemptHandler } from '../../src/webhooks/delivery/delivery-attempt.handler.js';
import { DeliveryDispatcher } from '../../src/webhooks/delivery/delivery-dispatcher.js';
import { DeliveryGate } from '../../src/webhooks/delivery/gate/delivery-gate.js';
import { testConfig } from '../support/config.js';
import { waitFor } from '../support/wait-for.js';

/**
 * The dispatcher on the real gate (Redis), its attempts standing in for the attempt handler:
 * succeeding, or failing as a backing service's outage or a fault would fail them.
 */
describe('delivery dispatcher (Redis)', () => {
  let gates = 0;
  let gate: DeliveryGate | undefined;
  let dispatcher: DeliveryDispatcher | undefined;
  afterEach(async () => {
    await dispatcher?.onModuleDestroy();
    await gate?.onApplicationShutdown();
    jest.restoreAllMocks();
  });

  /** Offers `count` deliveries to one endpoint and starts the dispatcher over them with `handler`. */
  async function dispatch(handler: DeliveryAttemptHandler, count: number, settings: Record<string, string>): Promise<void> {
    // A gate of its own per test: another test's deliveries, offered again, fail in their own way.
    const config = testConfig({ REDIS_PREFIX: `${process.env.REDIS_PREFIX}-dispatcher-${(gates += 1)}`, ...settings });
    gate = new DeliveryGate(config);
    const endpointId = randomUUID();
    await gate.enqueue(Array.from({ length: count }, () => ({ endpointId, deliveryId: randomUUID() })));
    dispatcher = new DeliveryDispatcher(gate, handler, config);
    dispatcher.onApplicationBootstrap();
  }

  /** Runs the dispatcher over `count` deliveries, each attempt failing with `failure`; answers the lines it logs. */
  async function failing(failure: () => Error, count: number): Promise<{ attempts: () => number; warnings: () => string[]; errors: () => string[] }> {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const error = jest.spyOn(Logger.prototype, 'error');
    let made = 0;
    const handler = { attempt: async () => ((made += 1), Promise.reject(failure())) } as unknown as DeliveryAttemptHandler;
    await dispatch(handler, count, { WEBHOOK_WORKER_CONCURRENCY: '5' });
    const texts = (spy: { mock: { calls: unknown[][] } }) => spy.mock.calls.map(([first, second]) => String(typeof first === 'string' ? first : second));
    return { attempts: () => made, warnings: () => texts(warn).filter((text) => text.includes('delivery attempt')), errors: () => texts(error).filter((text) => text.includes('delivery attempt')) };
  }

  /**
   * Runs the dispatcher over `count` deliveries to one endpoint, each attempt freeing its slot at
   * once (the receiver answered 2xx) and ending `recordMs` later (its outcome recorded); answers
   * how many ended, and how many takes the dispatcher asked the gate for beside its releases.
   */
  async function succeeding(count: number, settings: Record<string, string>, recordMs = 0): Promise<{ ended: () => number; takes: () => number }> {
    let ended = 0;
    const handler = {
      attempt: async (_grant: unknown, freeSlot: (verdict: 'up', holdUntilMs: null) => void) => {
        freeSlot('up', null);
        await sleep(recordMs);
        ended += 1;
        return null;
      },
    } as unknown as DeliveryAttemptHandler;
    const take = jest.spyOn(DeliveryGate.prototype, 'take');
    await dispatch(handler, count, settings);
    return { ended: () => ended, takes: () => take.mock.calls.length };
  }

  it('asks the gate once per freed slot: the call that frees it also takes, so the end of an attempt asks nothing more', async () => {
    const started = Date.now();
    const run = await succeeding(300, { WEBHOOK_WORKER_CONCURRENCY: '50' });
    await waitFor(async () => run.ended() === 300, 10_000, 'all 300 attempts');
    // The first take, and one a second at most while the gate has nothing due (its idle check),
    // however slow the machine. It took one after every attempt: 32 here, about half of a
    // burst's gate calls, each answering nothing.
    expect(run.takes()).toBeLessThanOrEqual(2 + Math.ceil((Date.now() - started) / 1000));
  });

  it('asks the gate when an attempt ends if its slot was freed while the process had no room to take', async () => {
    // Two attempts at once, each freeing its slot while both still run: those releases take
    // nothing. Without a take when each ends, the next two waited for the once-a-second check.
    const run = await succeeding(20, { WEBHOOK_WORKER_CONCURRENCY: '2' }, 20);
    await waitFor(async () => run.ended() === 20, 4000, 'all 20 attempts, two at a time');
  });

  it('attempts what its own process offers (the relay) with the offering call: no wake-up and no take of its own', async () => {
    const started = Date.now();
    const run = await succeeding(0, { WEBHOOK_WORKER_CONCURRENCY: '50' });
    await waitFor(async () => run.takes() === 1, 4000, "the dispatcher's first take");
    const endpointId = randomUUID();
    expect(await dispatcher!.offer(Array.from({ length: 5 }, () => ({ endpointId, deliveryId: randomUUID() })))).toBe(5);
    await waitFor(async () => run.ended() === 5, 4000, 'the five attempts');
    // Offered through Redis alone, they were taken after its wake-up: one more take at once. The
    // idle check may still ask once a second since the first take.
    expect(run.takes() - 1).toBeLessThanOrEqual(Math.floor((Date.now() - started) / 1000));
  });

  it('writes an outage its attempts met as one throttled warning, without a stack: it wrote an error with its stack for every attempt', async () => {
    const logged = await failing(() => new Error('Connection terminated unexpectedly'), 5);
    await waitFor(async () => logged.attempts() === 5 && logged.warnings().length > 0, 10_000, 'five attempts and their warning');
    expect(logged.errors()).toEqual([]);
    expect(logged.warnings()).toEqual([
      expect.stringMatching(/^a delivery attempt could not be recorded \(PostgreSQL or Redis did not answer: Connection terminated unexpectedly\); it is offered again shortly/),
    ]);
  });

  it('still writes any other failure as an error', async () => {
    const logged = await failing(() => new TypeError('x is not a function'), 1);
    await waitFor(async () => logged.errors().length > 0, 10_000, 'the error line');
    expect(logged.errors()).toEqual(['delivery attempt failed unexpectedly; it is offered again shortly']);
  });
});
