import { jest } from '@jest/globals';
import { type ArgumentsHost, Logger } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import type { AppConfig } from '../config/app-config.js';
import { ProblemFilter } from './problem.filter.js';

describe('ProblemFilter', () => {
  afterEach(() => jest.restoreAllMocks());

  function answer(filter: ProblemFilter, error: unknown, traceId: string): number {
    let status = 0;
    const response = { headersSent: false, status: (code: number) => ((status = code), response), setHeader: () => response, type: () => response, send: () => response };
    const request = { traceId, method: 'GET', path: '/v1/invoices' };
    const host = { switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }) } as unknown as ArgumentsHost;
    filter.catch(error, host);
    return status;
  }

  it('logs an outage (503) as one warning per 30 s without a stack, and any other failure as an error with its stack', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const filter = new ProblemFilter({ errorsBaseUrl: 'https://errors.example' } as AppConfig, {} as HttpAdapterHost);
    const timeout = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });

    for (const trace of ['t1', 't2', 't3']) expect(answer(filter, timeout, trace)).toBe(503);
    expect(error).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toBe('a backing service did not answer in time: canceling statement due to statement timeout (trace t1)');

    const bug = new TypeError('x is undefined');
    expect(answer(filter, bug, 't4')).toBe(500);
    expect(error).toHaveBeenCalledWith({ err: bug, trace_id: 't4' }, 'unhandled error');
  });
});
