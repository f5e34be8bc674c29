import { DomainException } from '../errors/domain.exception.js';
import type { RateLimitWindow } from './rate-limit.policies.js';

/** Where a window stands for one caller after a request. */
export interface WindowState {
  window: RateLimitWindow;
  remaining: number;
  /** Milliseconds until the window's counter resets. */
  resetMs: number;
}

/**
 * The IETF draft header (draft-ietf-httpapi-ratelimit-headers) listing the limits that apply,
 * as a structured-field list: `"default";q=100;w=1, "webhook_replay";q=60;w=60`.
 */
export function rateLimitPolicyHeader(windows: readonly RateLimitWindow[]): string {
  return windows.map((window) => `"${window.id}";q=${window.points};w=${window.durationSeconds}`).join(', ');
}

/** The IETF draft `RateLimit` header: what remains of each window and when it resets (`t`, seconds). */
export function rateLimitHeader(states: readonly WindowState[]): string {
  return states.map((state) => `"${state.window.id}";r=${state.remaining};t=${Math.max(0, Math.ceil(state.resetMs / 1000))}`).join(', ');
}

/** Retry-After in whole seconds, at least 1, so a client never retries before the reset. */
export function retryAfterSeconds(resetMs: number): number {
  return Math.max(1, Math.ceil(resetMs / 1000));
}

/** The 429 of a refused request, with `Retry-After` beside `headers`; `detail` is told the seconds to wait. */
export function rateLimited(resetMs: number, detail: (retryAfter: number) => string, headers: Record<string, string> = {}): DomainException {
  const retryAfter = retryAfterSeconds(resetMs);
  return new DomainException('RateLimited', detail(retryAfter), {}, { ...headers, 'Retry-After': String(retryAfter) });
}
