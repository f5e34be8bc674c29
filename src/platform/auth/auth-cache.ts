/** What authenticating a request needs to know of an API key and its company. */
export interface KeyRecord {
  id: string;
  tenantId: string;
  tenantSlug: string;
  tenantActive: boolean;
  secretHash: Buffer;
  scopes: string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  deletedAt: Date | null;
  userId: string | null;
}

/**
 * API keys by prefix, in process memory, each for at most `ttlMs`. `invalidate` drops what a
 * change notification names: `key:<prefix>`, or `tenant:<id>` (every key of the company).
 * A lookup that was running while an invalidation arrived may have read the old row, so `set`
 * stores only when no invalidation happened since the lookup's `generation`.
 */
export class AuthCache {
  private readonly entries = new Map<string, { record: KeyRecord; storedAt: number }>();
  private currentGeneration = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get generation(): number {
    return this.currentGeneration;
  }

  get(prefix: string): KeyRecord | undefined {
    const entry = this.entries.get(prefix);
    if (!entry) return undefined;
    if (this.now() - entry.storedAt >= this.ttlMs) {
      this.entries.delete(prefix);
      return undefined;
    }
    return entry.record;
  }

  set(prefix: string, record: KeyRecord, generation: number): void {
    if (generation !== this.currentGeneration) return;
    // Oldest first: Map keeps insertion order.
    if (this.entries.size >= this.maxEntries && !this.entries.has(prefix)) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(prefix, { record, storedAt: this.now() });
  }

  invalidate(notification: string): void {
    this.currentGeneration += 1;
    const [kind, id] = [notification.slice(0, notification.indexOf(':')), notification.slice(notification.indexOf(':') + 1)];
    if (kind === 'key') {
      this.entries.delete(id);
    } else if (kind === 'tenant') {
      for (const [prefix, entry] of this.entries) if (entry.record.tenantId === id) this.entries.delete(prefix);
    } else {
      this.entries.clear();
    }
  }

  clear(): void {
    this.currentGeneration += 1;
    this.entries.clear();
  }
}
