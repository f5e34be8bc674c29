import { Errors } from '../catalog/errors.js';

/** How long a stored response is replayed (spec section 8: 24 hours). */
export const IDEMPOTENCY_RETENTION_HOURS = 24;

/** The largest stored response that can be replayed (spec section 8: 256 KiB of body). */
export const MAX_REPLAYABLE_BODY_BYTES = 256 * 1024;

/** Whether an answer's body (null: none) is small enough to be replayed. */
export function isReplayableBody(body: string | null): boolean {
  return body === null || Buffer.byteLength(body) <= MAX_REPLAYABLE_BODY_BYTES;
}

/**
 * An in-progress claim older than this is taken to belong to a process that died mid-request
 * and may be taken over by a repeat. Far longer than any request of this API should run.
 */
export const STALE_CLAIM_SECONDS = 60;

/** Methods whose requests honour the header; GET is safe to repeat anyway. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['POST', 'PATCH', 'DELETE']);

/** 1-255 printable ASCII characters (Node has already trimmed surrounding spaces). */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

export function isValidIdempotencyKey(value: string): boolean {
  return VALID_KEY.test(value);
}

/**
 * The 422s a retry may cure (the referenced record may exist by then, the id may be fixed), so
 * they are not stored (spec section 8 rule 2).
 */
const RETRYABLE_VALIDATION_KEYS: ReadonlySet<string> = new Set([Errors.InvalidReference.detailKey, Errors.InvalidInput.detailKey]);

/** Whether an answer is kept for replay: 200-499, except the retryable 422s; never a 5xx. */
export function isStoredResponse(status: number, detailKey?: string): boolean {
  if (status < 200 || status > 499) return false;
  return !(status === 422 && detailKey !== undefined && RETRYABLE_VALIDATION_KEYS.has(detailKey));
}

/**
 * When an answer that could not be stored is tried again (after 1, 2, 4 … s, from the first
 * failure), up to `withinMs` in all: the last wait is cut to what is left, so the last try comes
 * at the limit (the claim's stale limit), not a whole doubling before it.
 */
export function storeRetryWaits(firstMs: number, withinMs: number): number[] {
  const waits: number[] = [];
  for (let wait = firstMs, spent = 0; spent < withinMs; wait *= 2) {
    waits.push(Math.min(wait, withinMs - spent));
    spent += waits.at(-1)!;
  }
  return waits;
}
