import { admit, MemorySlidingWindowStore } from '../../services/gateway/sliding-window.js';
import type { Options } from 'express-rate-limit';

const MINUTE = 60_000;

describe('spec 8: rate limits are sliding windows', () => {
  test('up to the limit is admitted; the next request in the window is refused', () => {
    const log: number[] = [];
    const hits = [0, 1, 2].map((t) => admit(log, t, MINUTE, 3).totalHits);
    expect(hits).toEqual([1, 2, 3]);
    expect(admit(log, 3, MINUTE, 3).totalHits).toBe(4); // over the limit: refused
  });

  test('more than the limit in any span of the window is refused, across any boundary', () => {
    // A fixed window starting at the first request would let 3 more through at 60.6 s.
    const log: number[] = [];
    const at = (seconds: number) => admit(log, seconds * 1000, MINUTE, 3).totalHits <= 3;
    expect([at(0), at(57), at(57.1)]).toEqual([true, true, true]);
    expect([at(60.6), at(60.6), at(60.6)]).toEqual([true, false, false]);
  });

  test('a slot frees exactly when the oldest admitted request leaves the window', () => {
    const log: number[] = [];
    admit(log, 1_000, MINUTE, 1);
    expect(admit(log, 1_000 + MINUTE - 1, MINUTE, 1).totalHits).toBe(2);
    expect(admit(log, 1_000 + MINUTE, MINUTE, 1).totalHits).toBe(1);
  });

  test('refused requests are not logged: the log never holds more than the limit', () => {
    const log: number[] = [];
    for (let t = 0; t < 100; t++) admit(log, t, MINUTE, 5);
    expect(log).toEqual([0, 1, 2, 3, 4]);
  });

  test('resetInMs tells when the next slot frees (Retry-After)', () => {
    const log: number[] = [];
    admit(log, 10_000, MINUTE, 2);
    admit(log, 20_000, MINUTE, 2);
    expect(admit(log, 30_000, MINUTE, 2)).toEqual({ totalHits: 3, resetInMs: 40_000 });
  });

  test('the in-memory store counts each client on its own', async () => {
    const store = new MemorySlidingWindowStore();
    store.init({ windowMs: MINUTE, limit: 2 } as Options);
    try {
      const hits = ['a', 'a', 'b', 'a'].map((key) => store.increment(key).totalHits);
      expect(hits).toEqual([1, 2, 1, 3]);
      store.resetKey('a');
      expect(store.increment('a').totalHits).toBe(1);
    } finally {
      store.shutdown();
    }
  });
});
