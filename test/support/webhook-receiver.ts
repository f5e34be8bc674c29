import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
  receivedAt: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
}

/**
 * A local webhook receiver (`http://localhost:<port>`), recording every request and answering
 * as `respond` says (204 by default). It also counts, per `webhook-id`, how many requests were
 * being answered at the same time, so tests can show no attempt was sent twice concurrently.
 */
export interface WebhookReceiver {
  url: (path?: string) => string;
  port: number;
  requests: ReceivedRequest[];
  respond: (request: ReceivedRequest) => Answer;
  maxConcurrentPerId: () => number;
  close: () => Promise<void>;
}

export async function startReceiver(respond: (request: ReceivedRequest) => Answer = () => ({ status: 204 })): Promise<WebhookReceiver> {
  const inFlight = new Map<string, number>();
  let maxConcurrent = 0;
  const receiver: WebhookReceiver = {
    url: (path = '/hook') => `http://localhost:${receiver.port}${path}`,
    port: 0,
    requests: [],
    respond,
    maxConcurrentPerId: () => maxConcurrent,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), path: request.url ?? '', receivedAt: Date.now() };
      receiver.requests.push(received);
      const id = String(request.headers['webhook-id']);
      const current = (inFlight.get(id) ?? 0) + 1;
      inFlight.set(id, current);
      maxConcurrent = Math.max(maxConcurrent, current);
      const answer = receiver.respond(received);
      const send = () => {
        inFlight.set(id, inFlight.get(id)! - 1);
        if (response.destroyed) return;
        response.writeHead(answer.status, answer.headers);
        response.end(answer.body);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}

/** Verifies a received request with the stock `standardwebhooks` package; returns the parsed envelope. */
export function verifyStandard(secret: string, request: ReceivedRequest): Record<string, unknown> {
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Record<string, unknown>;
}

/** The README's X-OH-Signature verification snippet, as a receiver would write it. */
export function verifyOhSignature(secret: string, header: string, rawBody: string, toleranceSeconds = 300): boolean {
  const parts = header.split(',').map((part) => part.split('=', 2) as [string, string]);
  const timestamp = Number(parts.find(([name]) => name === 't')?.[1]);
  if (!Number.isFinite(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > toleranceSeconds) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${timestamp}.${rawBody}`).digest();
  return parts.some(([name, value]) => name === 'v1' && /^[0-9a-f]{64}$/.test(value) && timingSafeEqual(Buffer.from(value, 'hex'), expected));
}
