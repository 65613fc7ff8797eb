/** What an ExpiringMap holds and what it let go, for /metrics. */
export interface ExpiringMapStats {
  size: number;
  /** Entries evicted to stay within the bound (the least recently written first). */
  evictedForSize: number;
  /** Entries dropped because their time to live ran out. */
  expired: number;
}

/**
 * A map whose entries expire, holding at most `maxEntries`: for state keyed by client-chosen values
 * (session ids, conversation keys), which must not grow with every new value a client invents. A write
 * moves its key to the end of the insertion order, so the first entry is the least recently written,
 * the one evicted when the map is full. Expired entries are dropped when read, and all of them once
 * per `max(1024, size)` writes (so a sweep costs at most about one entry per write).
 */
export class ExpiringMap<Value> {
  readonly #entries = new Map<string, { value: Value; expires: number }>();
  /**
   * One iterator over the keys for the map's life: it yields each key in insertion order, skipping those
   * deleted since, and every live key lies ahead of it (it passed only keys it yielded, which were
   * evicted). A fresh `keys().next()` per eviction would step over every deleted slot at the front of
   * the table again each time: quadratic at a large bound.
   */
  readonly #oldest = this.#entries.keys();
  #writesSinceSweep = 0;
  #evictedForSize = 0;
  #expired = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): Value | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.#entries.delete(key);
      this.#expired++;
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: Value, ttlMs: number): void {
    const entries = this.#entries;
    // Deleted first, so the key moves to the end: the first key is always the least recently written.
    entries.delete(key);
    entries.set(key, { value, expires: this.now() + ttlMs });
    if (++this.#writesSinceSweep >= Math.max(1024, entries.size)) this.#sweep();
    if (entries.size > this.maxEntries) {
      entries.delete(this.#oldest.next().value!);
      this.#evictedForSize++;
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  get stats(): ExpiringMapStats {
    return { size: this.#entries.size, evictedForSize: this.#evictedForSize, expired: this.#expired };
  }

  #sweep(): void {
    this.#writesSinceSweep = 0;
    const now = this.now();
    for (const [key, entry] of this.#entries) {
      if (entry.expires <= now) {
        this.#entries.delete(key);
        this.#expired++;
      }
    }
  }
}
