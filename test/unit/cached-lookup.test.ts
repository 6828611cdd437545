import { CachedLookup } from '../../libs/cache/index.js';

/** libs/cache: what the services' caches of rarely changing records promise. */

function counted<V>(values: Map<number, V>) {
  const loads: number[] = [];
  const load = async (key: number) => {
    loads.push(key);
    return values.get(key) ?? null;
  };
  return { load, loads };
}

describe('a cached lookup', () => {
  test('a value is loaded once while it lives, and again once its time to live is over', async () => {
    let now = 0;
    const { load, loads } = counted(new Map([[1, 'one']]));
    const cache = new CachedLookup(load, { ttlMs: 1000, now: () => now });
    expect(await cache.find(1)).toBe('one');
    now = 999;
    expect(await cache.find(1)).toBe('one');
    expect(loads).toEqual([1]);
    now = 1000;
    await cache.find(1);
    expect(loads).toEqual([1, 1]);
  });

  test('a missing value is not kept: it may be created any moment', async () => {
    const values = new Map<number, string>();
    const { load, loads } = counted(values);
    const cache = new CachedLookup(load, { ttlMs: 60_000 });
    expect(await cache.find(7)).toBeNull();
    values.set(7, 'seven');
    expect(await cache.find(7)).toBe('seven');
    expect(loads).toEqual([7, 7]);
  });

  test('concurrent misses share one load', async () => {
    const { load, loads } = counted(new Map([[1, 'one']]));
    const cache = new CachedLookup(load, { ttlMs: 60_000 });
    expect(await Promise.all([cache.find(1), cache.find(1), cache.find(1)])).toEqual([
      'one',
      'one',
      'one',
    ]);
    expect(loads).toEqual([1]);
  });

  test('a change drops the value at once, and a load that began before it is not kept', async () => {
    const values = new Map([[1, 'old']]);
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let loads = 0;
    const cache = new CachedLookup(
      async (key: number) => {
        loads++;
        const value = values.get(key) ?? null;
        if (loads === 1) await gate;
        return value;
      },
      { ttlMs: 60_000 },
    );
    const early = cache.find(1);
    values.set(1, 'new');
    cache.invalidate(1);
    release();
    expect(await early).toBe('old');
    expect(await cache.find(1)).toBe('new');
    expect(await cache.find(1)).toBe('new');
    expect(loads).toBe(2);
  });

  test('a failed load is not kept, and the next lookup tries again', async () => {
    let fail = true;
    const cache = new CachedLookup(
      async () => {
        if (fail) throw new Error('down');
        return 'up';
      },
      { ttlMs: 60_000 },
    );
    await expect(cache.find(1)).rejects.toThrow('down');
    fail = false;
    expect(await cache.find(1)).toBe('up');
  });

  test('past its size the oldest entry is dropped', async () => {
    const { load, loads } = counted(
      new Map([
        [1, 'a'],
        [2, 'b'],
        [3, 'c'],
      ]),
    );
    const cache = new CachedLookup(load, { ttlMs: 60_000, maxEntries: 2 });
    for (const key of [1, 2, 3, 2, 3, 1]) await cache.find(key);
    expect(loads).toEqual([1, 2, 3, 1]);
  });

  test('a time to live of 0 keeps nothing', async () => {
    const { load, loads } = counted(new Map([[1, 'one']]));
    const cache = new CachedLookup(load, { ttlMs: 0 });
    await cache.find(1);
    await cache.find(1);
    expect(loads).toEqual([1, 1]);
  });
});
