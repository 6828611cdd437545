/**
 * Records read on every request that change rarely (products, plans, a product's releases),
 * kept in memory by the service that reads them. Correct across replicas because every change is
 * announced (an RPC event each replica hears, itself included) and drops the entry at once; the
 * time to live bounds what an announcement lost to a broker outage can cost. Concurrent misses of
 * one key share one load, and a load that began before a change is not kept.
 */
export class CachedLookup<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();
  private readonly loading = new Map<K, Promise<V | null>>();
  /** Bumped by every change of a key: a load that began before a change must not be kept. */
  private readonly generations = new Map<K, number>();

  constructor(
    private readonly load: (key: K) => Promise<V | null>,
    private readonly options: {
      /** 0: nothing is kept (every lookup loads). */
      ttlMs: number;
      /** Past this many entries the oldest is dropped. */
      maxEntries?: number;
      now?: () => number;
    },
  ) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /** The value, or null when there is none (a null is never kept: it may appear any moment). */
  find(key: K): Promise<V | null> {
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > this.now()) return Promise.resolve(cached.value);
    const pending = this.loading.get(key);
    if (pending) return pending;
    const generation = this.generation(key);
    const started = this.load(key).then(
      (value) => {
        if (this.loading.get(key) === started) this.loading.delete(key);
        if (value !== null && this.options.ttlMs > 0 && this.generation(key) === generation) {
          this.keep(key, value);
        }
        return value;
      },
      (error: unknown) => {
        if (this.loading.get(key) === started) this.loading.delete(key);
        throw error;
      },
    );
    this.loading.set(key, started);
    return started;
  }

  /** The key changed: its entry, and any load in progress, are forgotten. */
  invalidate(key: K): void {
    this.entries.delete(key);
    this.loading.delete(key);
    this.generations.set(key, this.generation(key) + 1);
  }

  private generation(key: K): number {
    return this.generations.get(key) ?? 0;
  }

  private keep(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + this.options.ttlMs });
    const max = this.options.maxEntries ?? 10_000;
    if (this.entries.size > max) {
      // Maps iterate in insertion order: the first key is the oldest kept.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }
}
