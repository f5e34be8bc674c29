import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { AppConfig } from '../../platform/config/app-config.js';
import type { DeliveryAttemptHandler } from './delivery-attempt.handler.js';
import { DeliveryDispatcher } from './delivery-dispatcher.js';
import type { DeliveryGate } from './gate/delivery-gate.js';

describe('DeliveryDispatcher with Redis away', () => {
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('says the gate failed once in 30 s, without a stack, however often it retries', async () => {
    jest.useFakeTimers();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const take = jest.fn(() => Promise.reject(new Error('Command timed out')));
    const gate = { take, onWake: () => undefined, onReady: () => undefined } as unknown as DeliveryGate;
    const dispatcher = new DeliveryDispatcher(gate, {} as DeliveryAttemptHandler, { WEBHOOK_WORKER_CONCURRENCY: 10 } as AppConfig);
    dispatcher.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(59_000);
    // Retried at least every 5 s; before, each retry wrote a warning with the error's stack.
    expect(take.mock.calls.length).toBeGreaterThanOrEqual(10);
    expect(warn.mock.calls).toEqual([
      ['taking deliveries from the gate failed (Redis did not answer: Command timed out); trying again shortly'],
      [expect.stringMatching(/^taking deliveries from the gate failed .* \(and 9 more like it since the last\)$/)],
    ]);
    await dispatcher.onModuleDestroy();
  });

  it('asks the gate again 250 ms after a failed take, doubling to 5 s, and from the start once a take succeeds', async () => {
    jest.useFakeTimers({ now: 0 });
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const answers = [false, false, false, false, false, false, false, true, false, false];
    const asked: number[] = [];
    const take = jest.fn(() => {
      asked.push(Date.now());
      // A granted take that leaves room asks again when the next is due, at most a second later.
      return answers.shift() === false ? Promise.reject(new Error('Command timed out')) : Promise.resolve({ grants: [], changes: [], nextAtMs: null });
    });
    const gate = { take, onWake: () => undefined, onReady: () => undefined } as unknown as DeliveryGate;
    const dispatcher = new DeliveryDispatcher(gate, {} as DeliveryAttemptHandler, { WEBHOOK_WORKER_CONCURRENCY: 10 } as AppConfig);
    dispatcher.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(20_000);
    // Before: every 5 s from the first failure, however soon Redis answered again.
    expect(asked.slice(0, 10)).toEqual([0, 250, 750, 1750, 3750, 7750, 12750, 17750, 18750, 19000]);
    await dispatcher.onModuleDestroy();
  });

  it('asks the gate at once when its connection is ready again, without waiting for the retry', async () => {
    jest.useFakeTimers({ now: 0 });
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    let ready: () => void = () => undefined;
    const asked: number[] = [];
    const take = jest.fn(() => {
      asked.push(Date.now());
      return Promise.reject(new Error('Connection is closed.'));
    });
    const gate = { take, onWake: () => undefined, onReady: (listener: () => void) => (ready = listener) } as unknown as DeliveryGate;
    const dispatcher = new DeliveryDispatcher(gate, {} as DeliveryAttemptHandler, { WEBHOOK_WORKER_CONCURRENCY: 10 } as AppConfig);
    dispatcher.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(9_000);
    expect(asked).toEqual([0, 250, 750, 1750, 3750, 7750]);
    ready();
    await jest.advanceTimersByTimeAsync(0);
    expect(asked).toEqual([0, 250, 750, 1750, 3750, 7750, 9000]);
    await dispatcher.onModuleDestroy();
  });
});
