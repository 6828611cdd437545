import { createHash } from 'node:crypto';
import {
  admit,
  MemorySlidingWindowStore,
  RateLimitCalls,
  type RateLimitRedis,
} from '../../services/gateway/rate-limits/sliding-window.js';
import type { Options } from 'express-rate-limit';
import {
  limiterLog,
  STORE_FAILURE_REPORT_EVERY_MS,
} from '../../services/gateway/rate-limits/rate-limits.js';

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

/** A Redis for RateLimitCalls: answers the script as told, counting what it is sent. */
class FakeRedis {
  sent: string[] = [];
  knownScripts = new Set<string>();
  answer: 'reply' | 'hang' | 'fail' = 'reply';

  private respond<T>(value: T): Promise<T> {
    if (this.answer === 'hang') return new Promise<T>(() => {});
    if (this.answer === 'fail') return Promise.reject(new Error('Connection is closed.'));
    return Promise.resolve(value);
  }

  evalsha(sha: string): Promise<unknown> {
    this.sent.push('evalsha');
    if (this.answer === 'reply' && !this.knownScripts.has(sha)) {
      return Promise.reject(new Error('NOSCRIPT No matching script. Please use EVAL.'));
    }
    return this.respond([1, 60_000]);
  }

  eval(script: string): Promise<unknown> {
    this.sent.push('eval');
    this.knownScripts.add(createHash('sha1').update(script).digest('hex'));
    return this.respond([1, 60_000]);
  }

  zpopmax(): Promise<string[]> {
    this.sent.push('zpopmax');
    return this.respond([]);
  }

  del(): Promise<number> {
    this.sent.push('del');
    return this.respond(1);
  }
}

describe('spec 8 with Redis gone: the limits let requests through, waiting at most once', () => {
  function calls(redis: FakeRedis) {
    let now = 0;
    const limits = new RateLimitCalls(redis as unknown as RateLimitRedis, () => now);
    return { limits, advance: (ms: number) => (now += ms) };
  }

  test('the script is sent by its hash, and its text only when Redis does not know it yet', async () => {
    const redis = new FakeRedis();
    const { limits } = calls(redis);
    expect(await limits.admit('k', 60_000, 5, 'm1')).toEqual({ totalHits: 1, resetInMs: 60_000 });
    await limits.admit('k', 60_000, 5, 'm2');
    expect(redis.sent).toEqual(['evalsha', 'eval', 'evalsha']);
  });

  test('a Redis that does not answer fails the call after 500 ms, and the calls after it at once', async () => {
    const redis = new FakeRedis();
    redis.answer = 'hang';
    const { limits, advance } = calls(redis);
    await expect(limits.admit('k', 60_000, 5, 'm')).rejects.toThrow('timed out');
    // The next limit of the same request (activate passes two) does not wait again.
    await expect(limits.admit('k2', 60_000, 5, 'm')).rejects.toThrow('skipped');
    await expect(limits.decrement('k')).rejects.toThrow('skipped');
    expect(redis.sent).toEqual(['evalsha']);
    // A moment later Redis is asked again, and answers once it is back.
    advance(1000);
    redis.answer = 'reply';
    redis.knownScripts.clear();
    expect((await limits.admit('k', 60_000, 5, 'm')).totalHits).toBe(1);
  });

  test('a refused connection fails the call at once, and pauses the calls after it too', async () => {
    const redis = new FakeRedis();
    redis.answer = 'fail';
    const { limits, advance } = calls(redis);
    await expect(limits.admit('k', 60_000, 5, 'm')).rejects.toThrow('Connection is closed');
    await expect(limits.reset('k')).rejects.toThrow('skipped');
    advance(999);
    await expect(limits.reset('k')).rejects.toThrow('skipped');
    advance(1);
    redis.answer = 'reply';
    await expect(limits.reset('k')).resolves.toBeUndefined();
  });
});

describe('a failing Redis is reported once in a while, not once per request', () => {
  function recorder() {
    const lines: Array<{ err: string; msg: string }> = [];
    const logger = {
      warn: (fields: { err: string }, msg: string) => lines.push({ ...fields, msg }),
    };
    return { lines, logger };
  }
  const storeError =
    'express-rate-limit: error from store, allowing request without rate-limiting.';

  test('store failures: one warning, then none until the period has passed', () => {
    const { lines, logger } = recorder();
    let now = 1_000_000;
    const log = limiterLog(logger as never, () => now);
    for (let i = 0; i < 50; i++) log.error(new Error('Connection is closed.'), storeError);
    expect(lines).toEqual([
      {
        err: 'Connection is closed.',
        msg: 'Redis is failing: the rate limits let requests through',
      },
    ]);
    now += STORE_FAILURE_REPORT_EVERY_MS - 1;
    log.error(new Error('Connection is closed.'), storeError);
    expect(lines).toHaveLength(1);
    now += 1;
    log.error(new Error('rate-limit check timed out'), storeError);
    expect(lines).toHaveLength(2);
    expect(lines[1]?.err).toBe('rate-limit check timed out');
  });

  test("the library's configuration warnings are passed on as they are, not as a Redis failure", () => {
    const { lines, logger } = recorder();
    const log = limiterLog(logger as never, () => 0);
    log.error(new Error('ERR_ERL_KEY_GEN_IPV6: a custom keyGenerator ...'));
    log.warn(new Error('ERR_ERL_CREATED_IN_REQUEST_HANDLER: ...'));
    expect(lines.map((line) => line.msg)).toEqual([
      'rate limiter configuration',
      'rate limiter configuration',
    ]);
    expect(lines[0]?.err).toContain('ERR_ERL_KEY_GEN_IPV6');
  });
});
