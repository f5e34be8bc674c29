import { jest } from '@jest/globals';
import type { NextFunction, Request, Response } from 'express';
import { inOrder } from './http-pipeline.js';

const request = {} as Request;
const response = {} as Response;

describe('inOrder', () => {
  it('runs its middlewares in order, then the next layer once', () => {
    const ran: string[] = [];
    const step = (name: string) => (_request: Request, _response: Response, next: NextFunction) => {
      ran.push(name);
      next();
    };
    const next = jest.fn();
    inOrder(step('trace'), step('log'), step('headers'))(request, response, next);
    expect(ran).toEqual(['trace', 'log', 'headers']);
    expect(next).toHaveBeenCalledTimes(1);
    expect(next).toHaveBeenCalledWith(undefined);
  });

  it('skips the rest when one passes an error on, and hands the error to the next layer', () => {
    const refused = new Error('refused');
    const after = jest.fn();
    const next = jest.fn();
    inOrder((_request, _response, go) => go(refused), after)(request, response, next);
    expect(after).not.toHaveBeenCalled();
    expect(next).toHaveBeenCalledWith(refused);
  });

  it('goes on past a falsy value passed to next, which express takes for no error', () => {
    const after = jest.fn((_request: Request, _response: Response, go: NextFunction) => go());
    const next = jest.fn();
    inOrder((_request, _response, go) => go(null), after)(request, response, next);
    expect(after).toHaveBeenCalledTimes(1);
    expect(next).toHaveBeenCalledWith(undefined);
  });

  it('lets a thrown error out, as express catches it from one layer, without running the rest', () => {
    const after = jest.fn();
    const next = jest.fn();
    const failing = inOrder(() => {
      throw new Error('bad query');
    }, after);
    expect(() => failing(request, response, next)).toThrow('bad query');
    expect(after).not.toHaveBeenCalled();
    expect(next).not.toHaveBeenCalled();
  });
});
