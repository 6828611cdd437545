import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import {
  rateLimit,
  type ClientRateLimitInfo,
  type IncrementResponse,
  type Options,
  type Store,
} from 'express-rate-limit';
import { Redis } from 'ioredis';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type { Config } from '../../libs/config/index.js';
import { LicensingError } from '../../libs/contracts/index.js';
import type { Logger } from '../../libs/logging/index.js';

/** A rate-limit check that Redis has not answered within this time lets the request through. */
const STORE_TIMEOUT_MS = 500;

export interface RateLimitSettings {
  perIpPerMinute: number;
  updatesPerMinute: number;
  downloadsPerMinute: number;
  activationsPerKeyPerHour: number;
  /** Shared counters across gateway replicas; without Redis each replica counts alone. */
  redis?: Redis;
  redisPrefix: string;
}

export interface RateLimits {
  /** Spec 8: per-IP limit of the license operations. */
  perIp: RequestHandler;
  /** Spec 8: more than 60 update checks in 60 seconds from one IP are refused. */
  updates: RequestHandler;
  /** Spec 8 leaves the download limit open: RATE_LIMIT_DOWNLOADS_PER_MINUTE per IP. */
  downloads: RequestHandler;
  /** Spec 8: activate calls per license key (in addition to the per-IP limit). */
  activationsPerKey: (licenseKey: (res: Parameters<RequestHandler>[1]) => string) => RequestHandler;
}

export function connectRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    // Fail commands fast while Redis is down instead of queueing them without bound.
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    lazyConnect: false,
  });
  redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'Redis error'));
  return redis;
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out`)), STORE_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * rate-limit-redis behind a guard: every call is bounded in time, and a store whose start-up
 * failed (Redis down) is rebuilt on the next call instead of failing forever. Together with
 * `passOnStoreError`, an unavailable Redis lets requests through rather than hanging them.
 */
class GuardedRedisStore implements Store {
  private current: { store: RedisStore; ready: Promise<void> } | null = null;
  private options: Options | undefined;
  readonly prefix: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.prefix = prefix;
  }

  init(options: Options): void {
    this.options = options;
  }

  private async store(): Promise<RedisStore> {
    if (!this.current) {
      const store = new RedisStore({
        prefix: this.prefix,
        sendCommand: (command: string, ...args: string[]) =>
          this.redis.call(command, ...args) as Promise<RedisReply>,
      });
      const ready = Promise.resolve(store.init(this.options!));
      ready.catch(() => {}); // observed below; a failure rebuilds the store on the next call
      this.current = { store, ready };
    }
    const current = this.current;
    try {
      await current.ready;
    } catch (error) {
      if (this.current === current) this.current = null;
      throw error;
    }
    return current.store;
  }

  async increment(key: string): Promise<IncrementResponse> {
    return withTimeout(
      this.store().then((s) => s.increment(key)),
      'rate-limit increment',
    );
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return withTimeout(
      this.store().then((s) => s.get(key)),
      'rate-limit get',
    );
  }

  async decrement(key: string): Promise<void> {
    await withTimeout(
      this.store().then((s) => s.decrement(key)),
      'rate-limit decrement',
    );
  }

  async resetKey(key: string): Promise<void> {
    await withTimeout(
      this.store().then((s) => s.resetKey(key)),
      'rate-limit reset',
    );
  }
}

function limiter(
  settings: RateLimitSettings,
  name: string,
  windowMs: number,
  limit: number,
  keyGenerator?: Options['keyGenerator'],
): RequestHandler {
  return rateLimit({
    windowMs,
    limit,
    identifier: name,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    passOnStoreError: true,
    ...(keyGenerator ? { keyGenerator } : {}),
    ...(settings.redis
      ? { store: new GuardedRedisStore(settings.redis, `${settings.redisPrefix}:rl:${name}:`) }
      : {}),
    // Spec 7: RATE_LIMITED (429) in the error envelope; Retry-After is set before this runs.
    handler: (_req, _res, next) => {
      next(new LicensingError('RATE_LIMITED', 'Too many requests; try again later.'));
    },
  });
}

export function createRateLimits(settings: RateLimitSettings): RateLimits {
  return {
    perIp: limiter(settings, 'license-ip', 60_000, settings.perIpPerMinute),
    updates: limiter(settings, 'updates-ip', 60_000, settings.updatesPerMinute),
    downloads: limiter(settings, 'downloads-ip', 60_000, settings.downloadsPerMinute),
    activationsPerKey: (licenseKey) =>
      limiter(
        settings,
        'activate-key',
        60 * 60_000,
        settings.activationsPerKeyPerHour,
        // Counted per key; the key itself (a credential) is never stored, only its hash.
        (_req, res) => createHash('sha256').update(licenseKey(res)).digest('hex'),
      ),
  };
}

/** The gateway's rate limits as configured; `close` ends the Redis connection, if any. */
export function rateLimitsFromConfig(
  config: Pick<
    Config,
    | 'REDIS_URL'
    | 'REDIS_PREFIX'
    | 'RATE_LIMIT_PER_IP_PER_MINUTE'
    | 'RATE_LIMIT_UPDATES_PER_MINUTE'
    | 'RATE_LIMIT_DOWNLOADS_PER_MINUTE'
    | 'RATE_LIMIT_ACTIVATIONS_PER_KEY_PER_HOUR'
  >,
  logger: Logger,
): { limits: RateLimits; close(): Promise<void> } {
  const redis = config.REDIS_URL ? connectRedis(config.REDIS_URL, logger) : undefined;
  return {
    limits: createRateLimits({
      perIpPerMinute: config.RATE_LIMIT_PER_IP_PER_MINUTE,
      updatesPerMinute: config.RATE_LIMIT_UPDATES_PER_MINUTE,
      downloadsPerMinute: config.RATE_LIMIT_DOWNLOADS_PER_MINUTE,
      activationsPerKeyPerHour: config.RATE_LIMIT_ACTIVATIONS_PER_KEY_PER_HOUR,
      redis,
      redisPrefix: config.REDIS_PREFIX,
    }),
    close: async () => {
      redis?.disconnect();
    },
  };
}
