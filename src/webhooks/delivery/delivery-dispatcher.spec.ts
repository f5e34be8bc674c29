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
    const gate = { take, onWake: () => undefined } as unknown as DeliveryGate;
    const dispatcher = new DeliveryDispatcher(gate, {} as DeliveryAttemptHandler, { WEBHOOK_WORKER_CONCURRENCY: 10 } as AppConfig);
    dispatcher.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(59_000);
    // Retried every 5 s; before, each retry wrote a warning with the error's stack.
    expect(take.mock.calls.length).toBeGreaterThanOrEqual(10);
    expect(warn.mock.calls).toEqual([
      ['taking deliveries from the gate failed (Redis did not answer: Command timed out); trying again shortly'],
      [expect.stringMatching(/^taking deliveries from the gate failed .* \(and 5 more like it since the last\)$/)],
    ]);
    await dispatcher.onModuleDestroy();
  });
});
