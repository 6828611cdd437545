/**
 * The caller's small key-value store (option `cache`): where the client keeps the latest time a
 * signed answer or license file vouched for, and the last verified validation for the offline
 * grace. A store that fails or does not answer in time counts as empty: it never fails a call.
 */

/** A store of strings by name, synchronous or asynchronous (e.g. a JSON file, IndexedDB). */
export interface KeyValueStore {
  get(name: string): string | null | undefined | Promise<string | null | undefined>;
  set(name: string, value: string): void | Promise<void>;
}

/** The Web Storage interface (`localStorage`, `sessionStorage`), accepted as it is. */
export interface StorageLike {
  getItem(name: string): string | null;
  setItem(name: string, value: string): void;
}

export type CacheOption = KeyValueStore | StorageLike;

export function isCacheOption(value: unknown): value is CacheOption {
  if (typeof value !== 'object' || value === null) return false;
  const store = value as Partial<KeyValueStore & StorageLike>;
  return (
    (typeof store.get === 'function' && typeof store.set === 'function') ||
    (typeof store.getItem === 'function' && typeof store.setItem === 'function')
  );
}

/** Entry names the client uses in the store. */
export const STORE_PREFIX = 'licensing:';
/** Milliseconds since the epoch: the latest time a verified answer or license file vouched for. */
export const LATEST_TIME_ENTRY = `${STORE_PREFIX}latest-time`;

/** Resolves to `promise`'s value, or to `fallback` once `ms` have passed (a resolved value wins at 0). */
export function bounded<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), Math.max(0, ms));
  });
  return Promise.race([promise.catch(() => fallback), late]).finally(() => clearTimeout(timer));
}

/**
 * The caller's store, made safe: a failing read is an empty entry, a failing write is lost.
 * Callers bound the waits (`bounded`) by their call's deadline.
 */
export class SafeStore {
  constructor(private readonly store: CacheOption) {}

  async read(name: string): Promise<string | null> {
    try {
      const store = this.store;
      const value = 'getItem' in store ? store.getItem(name) : await store.get(name);
      return typeof value === 'string' ? value : null;
    } catch {
      return null;
    }
  }

  async write(name: string, value: string): Promise<void> {
    try {
      const store = this.store;
      if ('setItem' in store) store.setItem(name, value);
      else await store.set(name, value);
    } catch {
      // A store that cannot be written only loses what offline checks would have used.
    }
  }
}

/**
 * Clock-tamper detection: the latest time that something the server signed vouched for (the
 * `created` of verified answers, the `issued_at` of license files). The real time cannot be
 * earlier; a local clock behind it by more than the tolerance has been set back.
 */
export class SignedTime {
  private loaded: Promise<void> | undefined;
  private value = 0;
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly store: SafeStore | null) {}

  private load(): Promise<void> {
    // Read once; a slow store still updates the value when it answers.
    this.loaded ??= (this.store?.read(LATEST_TIME_ENTRY) ?? Promise.resolve(null)).then((text) => {
      const stored = text === null ? NaN : Number(text);
      if (Number.isFinite(stored)) this.value = Math.max(this.value, stored);
    });
    return this.loaded;
  }

  /** Milliseconds since the epoch (0 when nothing is known), waiting for the store until `until`. */
  async get(until: number): Promise<number> {
    await bounded(this.load(), until - Date.now(), undefined);
    return this.value;
  }

  /** Remembers `ms` when it is later than what is known; waits for the store until `until`. */
  async note(ms: number, until: number): Promise<void> {
    await bounded(this.load(), until - Date.now(), undefined);
    if (!(ms > this.value)) return;
    this.value = ms;
    // One write at a time, each of the latest value: the store never goes back in time.
    this.writes = this.writes.then(() => this.store?.write(LATEST_TIME_ENTRY, String(this.value)));
    await bounded(this.writes, until - Date.now(), undefined);
  }
}
