import type { VettedWebhookUrl } from '../url-safety/webhook-url-checker.js';

/**
 * How long an approved URL check is reused by delivery attempts. Short on purpose: a host name
 * re-pointed to a private address is refused from at most this long after the change, while a
 * burst to one endpoint checks its URL about once a second instead of on every attempt (two name
 * lookups and the address classification were a fifth of the worker's CPU). The URL itself is
 * the key, so a changed endpoint URL is checked afresh on its next attempt; refusals are never
 * kept. The attempt still connects only to the address that was approved.
 */
const VETTED_URL_TTL_MS = 1000;
/** URLs remembered at most; the oldest is forgotten beyond this. */
const MAX_ENTRIES = 1000;

/**
 * Recently approved URL checks, per raw endpoint URL, each kept VETTED_URL_TTL_MS from when it
 * started. A check under way is shared: the attempts that need the same URL meanwhile (up to an
 * endpoint's cap, all at once when an approval runs out in a burst) wait for it rather than each
 * asking the receiver's DNS again.
 */
export class VettedUrlCache {
  private readonly entries = new Map<string, { vetted: Promise<VettedWebhookUrl>; until: number }>();

  constructor(private readonly ttlMs = VETTED_URL_TTL_MS) {}

  /** The URL's approval: a recent one, the check under way, or `check()` run now. A refusal (rejection) is not kept. */
  vet(rawUrl: string, nowMs: number, check: () => Promise<VettedWebhookUrl>): Promise<VettedWebhookUrl> {
    const entry = this.entries.get(rawUrl);
    if (entry !== undefined && entry.until > nowMs) return entry.vetted;
    this.entries.delete(rawUrl);
    const vetted = check();
    const fresh = { vetted, until: nowMs + this.ttlMs };
    this.entries.set(rawUrl, fresh);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    vetted.catch(() => {
      if (this.entries.get(rawUrl) === fresh) this.entries.delete(rawUrl);
    });
    return vetted;
  }
}
