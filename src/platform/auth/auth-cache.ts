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
 * API keys by prefix, in process memory, each for at most `ttlMs`, and the prefixes found to name
 * no key (`null`), as long: an unknown prefix is then answered from memory as a known one with a
 * wrong secret is, so the time of a 401 does not tell a prober which prefixes exist. Each kind
 * holds at most `maxEntries`, so a stream of made-up prefixes never pushes out the keys in use.
 * `invalidate` drops what a change notification names: `key:<prefix>` (a key changed or was
 * created), or `tenant:<id>` (every key of the company). A lookup that was running while an
 * invalidation arrived may have read the old row, so `set` stores only when no invalidation
 * happened since the lookup's `generation`.
 */
export class AuthCache {
  private readonly entries = new Map<string, { record: KeyRecord; storedAt: number }>();
  private readonly absent = new Map<string, number>();
  private currentGeneration = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get generation(): number {
    return this.currentGeneration;
  }

  /** The key, null when the prefix is known to name none, undefined when nothing is known. */
  get(prefix: string): KeyRecord | null | undefined {
    const entry = this.entries.get(prefix);
    if (entry) {
      if (this.now() - entry.storedAt < this.ttlMs) return entry.record;
      this.entries.delete(prefix);
    }
    const absentSince = this.absent.get(prefix);
    if (absentSince === undefined) return undefined;
    if (this.now() - absentSince < this.ttlMs) return null;
    this.absent.delete(prefix);
    return undefined;
  }

  set(prefix: string, record: KeyRecord | null, generation: number): void {
    if (generation !== this.currentGeneration) return;
    if (record === null) this.store(this.absent, prefix, this.now());
    else this.store(this.entries, prefix, { record, storedAt: this.now() });
  }

  private store<V>(map: Map<string, V>, prefix: string, value: V): void {
    // Oldest first: Map keeps insertion order.
    if (map.size >= this.maxEntries && !map.has(prefix)) map.delete(map.keys().next().value!);
    map.set(prefix, value);
  }

  invalidate(notification: string): void {
    this.currentGeneration += 1;
    const [kind, id] = [notification.slice(0, notification.indexOf(':')), notification.slice(notification.indexOf(':') + 1)];
    if (kind === 'key') {
      this.entries.delete(id);
      this.absent.delete(id);
    } else if (kind === 'tenant') {
      for (const [prefix, entry] of this.entries) if (entry.record.tenantId === id) this.entries.delete(prefix);
    } else {
      this.clear();
    }
  }

  clear(): void {
    this.currentGeneration += 1;
    this.entries.clear();
    this.absent.clear();
  }
}
