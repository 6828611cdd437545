import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ClientRateLimitInfo, Options, Store } from 'express-rate-limit';
import { withTimeout } from '../../../libs/process/timeout.js';

/**
 * Rate limits as sliding windows (a log of admitted requests per client): spec 8 says that more
 * than 60 update checks in 60 seconds are refused, so no span of `windowMs` may hold more than
 * `limit` admitted requests. A fixed window (a counter reset every `windowMs`, as
 * rate-limit-redis keeps) lets up to twice the limit through across a window boundary.
 *
 * Only admitted requests are logged, so a refused client is let in again as soon as its oldest
 * admitted request leaves the window, and a log never holds more than `limit` entries.
 */
export interface WindowDecision {
  /** What express-rate-limit compares with the limit: over it means refused. */
  totalHits: number;
  /** Milliseconds until the oldest admitted request leaves the window (a slot frees). */
  resetInMs: number;
}

/** The rule itself, on one client's log of admission times (ascending, milliseconds). */
export function admit(log: number[], now: number, windowMs: number, limit: number): WindowDecision {
  let stale = 0;
  while (stale < log.length && log[stale]! <= now - windowMs) stale++;
  if (stale > 0) log.splice(0, stale);
  const admitted = log.length < limit;
  if (admitted) log.push(now);
  const oldest = log[0] ?? now;
  return {
    totalHits: admitted ? log.length : limit + 1,
    resetInMs: oldest + windowMs - now,
  };
}

function toInfo(decision: WindowDecision, now = Date.now()): ClientRateLimitInfo {
  return { totalHits: decision.totalHits, resetTime: new Date(now + decision.resetInMs) };
}

/** One gateway replica counting alone (no REDIS_URL). */
export class MemorySlidingWindowStore implements Store {
  readonly localKeys = true;
  private readonly logs = new Map<string, number[]>();
  private windowMs = 60_000;
  private limit = 1;
  private sweeper: NodeJS.Timeout | undefined;

  init(options: Options): void {
    this.windowMs = options.windowMs;
    this.limit = typeof options.limit === 'number' ? options.limit : this.limit;
    // Forget clients whose every request left the window, so memory follows active clients.
    this.sweeper = setInterval(() => this.sweep(), this.windowMs);
    this.sweeper.unref();
  }

  increment(key: string): ClientRateLimitInfo {
    const now = Date.now();
    let log = this.logs.get(key);
    if (!log) this.logs.set(key, (log = []));
    return toInfo(admit(log, now, this.windowMs, this.limit), now);
  }

  decrement(key: string): void {
    this.logs.get(key)?.pop();
  }

  resetKey(key: string): void {
    this.logs.delete(key);
  }

  resetAll(): void {
    this.logs.clear();
  }

  shutdown(): void {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const horizon = Date.now() - this.windowMs;
    for (const [key, log] of this.logs) {
      if ((log[log.length - 1] ?? 0) <= horizon) this.logs.delete(key);
    }
  }
}

/**
 * `admit` as one atomic script, so every gateway replica shares each client's log. The time is
 * Redis's own, so replicas whose clocks differ still agree; the answer is relative to it.
 */
const ADMIT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local hits = redis.call('ZCARD', KEYS[1])
if hits < limit then
  redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[3])
  hits = hits + 1
else
  hits = limit + 1
end
redis.call('PEXPIRE', KEYS[1], window)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = window
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {hits, reset}
`;

/** A Redis call that has not answered within this time fails; the limiter then lets it pass. */
const REDIS_TIMEOUT_MS = 500;
/**
 * After a failed call no call is made for this long: while Redis is gone a request waits for it
 * at most once (not once per limit it passes), and most requests not at all.
 */
const PAUSE_AFTER_FAILURE_MS = 1000;

function parseReply(reply: unknown): WindowDecision {
  if (
    Array.isArray(reply) &&
    reply.length === 2 &&
    typeof reply[0] === 'number' &&
    typeof reply[1] === 'number'
  ) {
    return { totalHits: reply[0], resetInMs: reply[1] };
  }
  throw new Error('unexpected reply from the rate-limit script');
}

/** What the limits ask of Redis: the admission script, a pop and a delete. */
export type RateLimitRedis = Pick<Redis, 'evalsha' | 'eval' | 'zpopmax' | 'del'>;

/**
 * One gateway's rate-limit calls to Redis: each bounded in time (REDIS_TIMEOUT_MS), none made for
 * a moment after one failed (PAUSE_AFTER_FAILURE_MS), and the admission script sent by its hash
 * (EVALSHA), its text only when Redis does not know it yet.
 */
export class RateLimitCalls {
  private pausedUntil = 0;
  private readonly scriptSha = createHash('sha1').update(ADMIT_SCRIPT).digest('hex');

  constructor(
    private readonly redis: RateLimitRedis,
    private readonly now: () => number = Date.now,
  ) {}

  private async guarded<T>(what: string, call: () => Promise<T>): Promise<T> {
    if (this.now() < this.pausedUntil) {
      throw new Error(`${what} skipped: Redis failed less than ${PAUSE_AFTER_FAILURE_MS} ms ago`);
    }
    try {
      return await withTimeout(call(), REDIS_TIMEOUT_MS, `${what} timed out`);
    } catch (error) {
      this.pausedUntil = this.now() + PAUSE_AFTER_FAILURE_MS;
      throw error;
    }
  }

  admit(key: string, windowMs: number, limit: number, member: string): Promise<WindowDecision> {
    return this.guarded('rate-limit check', async () => {
      const args = [1, key, windowMs, limit, member] as const;
      try {
        return parseReply(await this.redis.evalsha(this.scriptSha, ...args));
      } catch (error) {
        if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
        return parseReply(await this.redis.eval(ADMIT_SCRIPT, ...args));
      }
    });
  }

  async decrement(key: string): Promise<void> {
    await this.guarded('rate-limit decrement', () => this.redis.zpopmax(key));
  }

  async reset(key: string): Promise<void> {
    await this.guarded('rate-limit reset', () => this.redis.del(key));
  }
}

/**
 * Gateway replicas sharing their logs in Redis (sorted sets of admission times). Every call is
 * bounded in time; with `passOnStoreError`, an unavailable Redis lets requests through rather
 * than hanging them or locking customers out (spec 7, rule 2).
 */
export class RedisSlidingWindowStore implements Store {
  private windowMs = 60_000;
  private limit = 1;
  private sequence = 0;

  constructor(
    private readonly calls: RateLimitCalls,
    readonly prefix: string,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
    this.limit = typeof options.limit === 'number' ? options.limit : this.limit;
  }

  async increment(key: string): Promise<ClientRateLimitInfo> {
    // Distinguishes requests admitted in the same millisecond (by this and other replicas).
    const member = `${process.pid}.${(this.sequence = (this.sequence + 1) % 1e9)}.${Math.random()}`;
    return toInfo(await this.calls.admit(this.prefix + key, this.windowMs, this.limit, member));
  }

  async decrement(key: string): Promise<void> {
    await this.calls.decrement(this.prefix + key);
  }

  async resetKey(key: string): Promise<void> {
    await this.calls.reset(this.prefix + key);
  }
}
