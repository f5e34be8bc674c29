import { randomBytes } from 'node:crypto';

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;

/**
 * The trace id of a request: the trace-id of an incoming W3C `traceparent` when valid (so the
 * caller's trace continues here), otherwise a fresh random one in the same 32-hex form.
 */
export function traceIdFrom(traceparent: string | string[] | undefined): string {
  const match = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent.trim().toLowerCase()) : null;
  if (match && !/^0+$/.test(match[1])) return match[1];
  return randomBytes(16).toString('hex');
}
