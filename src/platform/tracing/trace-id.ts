import { randomBytes } from 'node:crypto';

/** The response header that carries every request's trace id, on the API and the tool server alike. */
export const TRACE_HEADER = 'x-trace-id';

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;

/** Fresh ids are cut from one random buffer per 256 ids: one call into the CSPRNG instead of one per request. */
const IDS_PER_FILL = 256;
let entropy = Buffer.alloc(0);
let offset = 0;

function freshTraceId(): string {
  if (offset >= entropy.length) {
    entropy = randomBytes(16 * IDS_PER_FILL);
    offset = 0;
  }
  offset += 16;
  return entropy.toString('hex', offset - 16, offset);
}

/**
 * The trace id of a request: the trace-id of an incoming W3C `traceparent` when valid (so the
 * caller's trace continues here), otherwise a fresh random one in the same 32-hex form.
 */
export function traceIdFrom(traceparent: string | string[] | undefined): string {
  const match = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent.trim().toLowerCase()) : null;
  if (match && !/^0+$/.test(match[1])) return match[1];
  return freshTraceId();
}
