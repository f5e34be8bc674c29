import { randomBytes } from 'node:crypto';

/** The response header that carries every request's trace id, on the API and the tool server alike. */
export const TRACE_HEADER = 'x-trace-id';

/**
 * W3C Trace Context's `traceparent`, lower-case hex only: version, trace-id, parent-id, flags, then
 * the end or (a later version's further fields) a dash.
 */
const TRACEPARENT = /^([\da-f]{2})-([\da-f]{32})-([\da-f]{16})-[\da-f]{2}(-|$)/;
const ZEROS = /^0+$/;

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
 * caller's trace continues here), otherwise a fresh random one in the same 32-hex form. Valid as
 * the recommendation has it: version `ff` is none, version `00` has no further field, a later
 * version is read as `00` up to its further fields, and neither id may be all zeros.
 */
export function traceIdFrom(traceparent: string | string[] | undefined): string {
  const match = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent.trim()) : null;
  if (match) {
    const [, version, traceId, parentId, further] = match;
    if (version !== 'ff' && !(version === '00' && further === '-') && !ZEROS.test(traceId) && !ZEROS.test(parentId)) return traceId;
  }
  return freshTraceId();
}
