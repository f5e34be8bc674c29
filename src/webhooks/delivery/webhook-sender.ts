import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import type { LookupFunction } from 'node:net';
import { Pool } from 'undici';
import { AppConfig } from '../../platform/config/app-config.js';
import type { ATTEMPT_ERROR_KINDS } from './webhook-delivery.entity.js';

/** How much of a receiver's answer is read and kept. */
const RESPONSE_BODY_LIMIT = 20 * 1024;

/** Why a request got no HTTP answer. `ssrf` is decided before sending, by the URL checker. */
export type SendErrorKind = (typeof ATTEMPT_ERROR_KINDS)[number];

export type SendResult =
  | { status: number; body: string; retryAfter: string | undefined }
  | { errorKind: SendErrorKind; message: string };

export interface WebhookRequest {
  url: URL;
  /** The vetted IPv4 address to connect to; the host name is never resolved again. */
  ipv4: string;
  headers: Record<string, string>;
  body: string;
}

/** Pools kept open at most; the least recently used one is closed beyond this. */
const MAX_POOLS = 500;

/**
 * POSTs deliveries with undici. One connection pool per origin and vetted address, so
 * connections are reused across deliveries to the same receiver, while every connection goes to
 * the address the URL checker approved (a fixed `lookup`: DNS rebinding between the check and
 * the connect cannot redirect it). TLS still verifies the certificate against the host name.
 * Redirects are not followed (undici's request never does), and at most 20 kB of the answer is
 * read.
 *
 * Time: the whole exchange, from connecting to the answer's last byte, ends at WEBHOOK_TIMEOUT_MS
 * (the spec's 15 s receiver timeout), well within the lease (+5 s) and the gate's slot (+10 s),
 * so no attempt outlives them and none is sent twice at once. The deadline is a plain timer and
 * emitter, not `AbortSignal.timeout`: that signal cost a few percent of a busy worker's time,
 * and each of its aborts is an event dispatch and a `DOMException`, which a hung receiver's
 * requests, all timing out together, paid in the same millisecond.
 */
@Injectable()
export class WebhookSender implements OnModuleDestroy {
  private readonly pools = new Map<string, Pool>();

  constructor(@Inject(AppConfig) private readonly config: AppConfig) {}

  async send(request: WebhookRequest): Promise<SendResult> {
    const timeout = this.config.WEBHOOK_TIMEOUT_MS;
    const deadline = new EventEmitter();
    const timer = setTimeout(() => deadline.emit('abort'), timeout);
    try {
      const answer = await this.pool(request.url.origin, request.ipv4).request({
        method: 'POST',
        path: `${request.url.pathname}${request.url.search}`,
        headers: request.headers,
        body: request.body,
        signal: deadline,
      });
      const body = await readLimited(answer.body);
      const retryAfter = answer.headers['retry-after'];
      return { status: answer.statusCode, body, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter };
    } catch (error) {
      return { errorKind: classifySendError(error), message: String((error as { message?: unknown } | null)?.message ?? error) };
    } finally {
      clearTimeout(timer);
    }
  }

  async onModuleDestroy(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close().catch(() => undefined)));
  }

  private pool(origin: string, ipv4: string): Pool {
    const key = `${origin} ${ipv4}`;
    let pool = this.pools.get(key);
    if (pool) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.pools.delete(key);
    } else {
      const lookup: LookupFunction = (_host, options, callback) =>
        options.all ? callback(null, [{ address: ipv4, family: 4 }]) : callback(null, ipv4, 4);
      pool = new Pool(origin, { connect: { lookup, timeout: this.config.WEBHOOK_TIMEOUT_MS }, keepAliveTimeout: 30_000 });
    }
    this.pools.set(key, pool);
    if (this.pools.size > MAX_POOLS) {
      const [oldestKey, oldest] = this.pools.entries().next().value!;
      this.pools.delete(oldestKey);
      void oldest.close().catch(() => undefined);
    }
    return pool;
  }
}

/**
 * Reads up to RESPONSE_BODY_LIMIT bytes; a longer body is cut off and its connection dropped.
 * Kept as text: bytes that are not UTF-8, and U+0000, which PostgreSQL's text cannot hold (a
 * binary answer would otherwise fail the statement recording it, and with it every other
 * outcome batched into that statement), become U+FFFD.
 */
async function readLimited(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_BODY_LIMIT) {
      body.destroy();
      break;
    }
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT)).replaceAll('\u0000', '\uFFFD');
}

// UND_ERR_ABORTED: the only signal a request is given is its deadline.
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_ABORTED', 'ETIMEDOUT', 'ABORT_ERR']);
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EADDRNOTAVAIL', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME']);

type ErrorLike = { name?: unknown; code?: unknown; message?: unknown; cause?: ErrorLike };

/** undici's socket errors when the receiver answered what HTTP does not allow: a 100 Continue or a 101 Switching Protocols nobody asked for. */
const UNASKED_ANSWERS = new Set(['bad response', 'bad upgrade']);

/** The kind of a failed exchange, from the error undici (or the socket under it) threw. */
export function classifySendError(error: unknown): SendErrorKind {
  // Duck-typed, not `instanceof Error`: socket errors may come from another realm (a test VM).
  for (let current = error as ErrorLike | undefined; typeof current === 'object' && current !== null; current = current.cause) {
    const code = current.code;
    if (current.name === 'TimeoutError' || (typeof code === 'string' && TIMEOUT_CODES.has(code))) return 'timeout';
    if (typeof code !== 'string') continue;
    if (code === 'UND_ERR_SOCKET' && UNASKED_ANSWERS.has(current.message as string)) return 'protocol';
    if (DNS_CODES.has(code)) return 'dns';
    if (/^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_(GET|VERIFY))/.test(code) || code.includes('CERT')) return 'tls';
    if (CONNECT_CODES.has(code)) return 'connect';
  }
  return 'protocol';
}
