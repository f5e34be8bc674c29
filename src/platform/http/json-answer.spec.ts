import { jest } from '@jest/globals';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { answerJson } from './json-answer.js';

function responseTo(method: string): ServerResponse<IncomingMessage> {
  const request = new IncomingMessage(new Socket());
  request.method = method;
  return new ServerResponse(request);
}

describe('answerJson', () => {
  it('writes the JSON with its charset and its length in bytes, the status given', () => {
    const response = responseTo('POST');
    expect(answerJson(response, { name: 'Grüße €' }, 201)).toBe(true);
    expect(response.statusCode).toBe(201);
    expect(response.getHeader('content-type')).toBe('application/json; charset=utf-8');
    expect(response.getHeader('content-length')).toBe(Buffer.byteLength('{"name":"Grüße €"}'));
    expect(response.writableEnded).toBe(true);
  });

  it("counts the body's bytes once, not again when it is written (a list page is 40-60 KB)", () => {
    const response = responseTo('GET');
    const counted = jest.spyOn(Buffer, 'byteLength');
    try {
      answerJson(response, { data: 'x'.repeat(50_000) }, 200);
      expect(counted).toHaveBeenCalledTimes(1);
    } finally {
      counted.mockRestore();
    }
    expect(response.getHeader('content-length')).toBe(50_011);
    expect(response.headersSent).toBe(true);
  });

  it('answers HEAD with the length the GET would have and no body', () => {
    const response = responseTo('HEAD');
    expect(answerJson(response, { id: 'x' }, 200)).toBe(true);
    expect(response.getHeader('content-length')).toBe(Buffer.byteLength('{"id":"x"}'));
    expect(response.writableEnded).toBe(true);
  });

  it.each([
    ['a status without a body (204)', { ok: true }, 204, undefined],
    ['a status without a body (205)', { ok: true }, 205, undefined],
    ['a status without a body (304)', { ok: true }, 304, undefined],
    ['a Content-Type already set', { ok: true }, undefined, 'text/plain'],
    ['a body JSON makes nothing of', { toJSON: () => undefined }, undefined, undefined],
  ])('leaves %s to express, writing nothing', (_case, body, status, contentType) => {
    const response = responseTo('GET');
    if (contentType) response.setHeader('Content-Type', contentType);
    expect(answerJson(response, body, status)).toBe(false);
    expect(response.getHeader('content-length')).toBeUndefined();
    expect(response.writableEnded).toBe(false);
  });
});
