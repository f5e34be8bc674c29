import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { JobQueue } from './job-queue.service.js';
import { REPEATING_JOBS } from './queue.types.js';
import { SCHEDULE_CHECK_MS, WorkerRunner } from './worker-runner.service.js';

describe('WorkerRunner', () => {
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('checks the schedulers every minute and makes again only those Redis lost, saying so once', async () => {
    jest.useFakeTimers();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const held = new Set<string>();
    const schedule = jest.fn(async (job: { name: string }) => void held.add(job.name));
    const jobs = { schedule, isScheduled: async (job: { name: string }) => held.has(job.name) } as unknown as JobQueue;
    const runner = new WorkerRunner(jobs, []);
    await runner.onApplicationBootstrap();
    expect(schedule).toHaveBeenCalledTimes(REPEATING_JOBS.length);
    await jest.advanceTimersByTimeAsync(SCHEDULE_CHECK_MS);
    expect(schedule).toHaveBeenCalledTimes(REPEATING_JOBS.length);
    held.delete(REPEATING_JOBS[0].name);
    await jest.advanceTimersByTimeAsync(SCHEDULE_CHECK_MS);
    expect(schedule).toHaveBeenCalledTimes(REPEATING_JOBS.length + 1);
    expect(schedule).toHaveBeenLastCalledWith(REPEATING_JOBS[0]);
    expect(warn.mock.calls).toEqual([[`the schedulers of ${REPEATING_JOBS[0].name} were gone from Redis (flushed, or restarted without its data); made again`]]);
    await runner.beforeApplicationShutdown();
  });

  it('tries again at the next check when Redis does not answer', async () => {
    jest.useFakeTimers();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    let answers = false;
    const schedule = jest.fn(async () => undefined);
    const isScheduled = jest.fn(async () => {
      if (!answers) throw new Error('Connection is closed.');
      return false;
    });
    const runner = new WorkerRunner({ schedule, isScheduled } as unknown as JobQueue, []);
    await runner.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(SCHEDULE_CHECK_MS);
    expect(warn.mock.calls).toEqual([[`checking the repeating jobs' schedulers failed (Connection is closed.); trying again in 60 s`]]);
    answers = true;
    await jest.advanceTimersByTimeAsync(SCHEDULE_CHECK_MS);
    expect(schedule).toHaveBeenCalledTimes(2 * REPEATING_JOBS.length);
    await runner.beforeApplicationShutdown();
  });
});
