import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { RequestHandler, Response } from 'express';
import { rateLimit, type Options } from 'express-rate-limit';
import type * as IORedis from 'ioredis';
import type { Redis } from 'ioredis';
import type { Config } from '../../../libs/config/index.js';
import { LicensingError } from '../../../libs/contracts/index.js';
import type { Logger } from '../../../libs/logging/index.js';
import { metrics, type DependencyCheck } from '../../../libs/observability/index.js';
import {
  MemorySlidingWindowStore,
  RateLimitCalls,
  RedisSlidingWindowStore,
} from './sliding-window.js';

export interface RateLimitSettings {
  perIpPerMinute: number;
  updatesPerMinute: number;
  downloadsPerMinute: number;
  activationsPerKeyPerHour: number;
  /** Shared request logs across gateway replicas; without Redis each replica counts alone. */
  redis?: RateLimitCalls;
  redisPrefix: string;
  /** Where a failing Redis (at most once every 10 s) and the limiter's warnings go; unset: nowhere. */
  logger?: Logger;
}

export interface RateLimits {
  /** Spec 8: per-IP limit of the license operations. */
  perIp: RequestHandler;
  /** Spec 8: more than 60 update checks in 60 seconds from one IP are refused. */
  updates: RequestHandler;
  /** Spec 8 leaves the download limit open: RATE_LIMIT_DOWNLOADS_PER_MINUTE per IP. */
  downloads: RequestHandler;
  /**
   * Spec 8: activate calls per license key (in addition to the per-IP limit), the key read from
   * the request's parsed input.
   */
  activationsPerKey: (licenseKey: (res: Response) => string) => RequestHandler;
}

/**
 * ioredis, loaded with `require`: the tracing instrumentation (libs/observability) patches the
 * CommonJS loads of a library, which a static ES import would bypass.
 */
const ioredis = createRequire(import.meta.url)('ioredis') as typeof IORedis;

export function connectRedis(url: string, logger: Logger): Redis {
  const redis = new ioredis.Redis(url, {
    // Fail commands at once while Redis is down instead of queueing them (the limits then let
    // requests through: REDIS_URL in the README).
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 2000,
    // On stop, a socket that never opened is destroyed after this instead of 2 s.
    disconnectTimeout: 200,
    lazyConnect: false,
  });
  redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'Redis error'));
  return redis;
}

/** How often a Redis that keeps failing is reported: once, not once per request. */
export const STORE_FAILURE_REPORT_EVERY_MS = 10_000;

/**
 * express-rate-limit's logger. The library passes a message with the errors of its store (Redis
 * failing: the request passes), said once in a while; and none with the warnings of its own
 * checks of the configuration, each said once by the library and passed on as they are.
 */
export function limiterLog(
  logger: Pick<Logger, 'warn'> | undefined,
  now: () => number = Date.now,
): NonNullable<Options['logger']> {
  let lastStoreFailure = Number.NEGATIVE_INFINITY;
  const report = (error: unknown, context?: unknown) => {
    if (!logger) return;
    const err = error instanceof Error ? error.message : String(error);
    if (typeof context !== 'string') {
      logger.warn({ err }, 'rate limiter configuration');
      return;
    }
    if (now() - lastStoreFailure < STORE_FAILURE_REPORT_EVERY_MS) return;
    lastStoreFailure = now();
    logger.warn({ err }, 'Redis is failing: the rate limits let requests through');
  };
  return { warn: report, error: report };
}

/** The settings, and the one failure log every limit of a gateway reports to. */
type LimiterContext = RateLimitSettings & { failureLog: NonNullable<Options['logger']> };

function limiter(
  settings: LimiterContext,
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
    logger: settings.failureLog,
    ...(keyGenerator ? { keyGenerator } : {}),
    store: settings.redis
      ? new RedisSlidingWindowStore(settings.redis, `${settings.redisPrefix}:rl:${name}:`)
      : new MemorySlidingWindowStore(),
    // Spec 7: RATE_LIMITED (429) in the error envelope; Retry-After is set before this runs.
    handler: (_req, _res, next) => {
      metrics.rateLimitRefusals.inc({ limit: name });
      next(new LicensingError('RATE_LIMITED', 'Too many requests; try again later.'));
    },
  });
}

export function createRateLimits(rateLimitSettings: RateLimitSettings): RateLimits {
  const settings = { ...rateLimitSettings, failureLog: limiterLog(rateLimitSettings.logger) };
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
): { limits: RateLimits; checks: DependencyCheck[]; close(): Promise<void> } {
  const redis = config.REDIS_URL ? connectRedis(config.REDIS_URL, logger) : undefined;
  const calls = redis && new RateLimitCalls(redis);
  return {
    // Optional: without Redis the limits let requests pass (docs/operations.md).
    checks: redis
      ? [
          {
            name: 'redis',
            optional: true,
            check: async () => {
              if (redis.status !== 'ready') throw new Error(`Redis connection ${redis.status}`);
              await redis.ping();
            },
          },
        ]
      : [],
    limits: createRateLimits({
      perIpPerMinute: config.RATE_LIMIT_PER_IP_PER_MINUTE,
      updatesPerMinute: config.RATE_LIMIT_UPDATES_PER_MINUTE,
      downloadsPerMinute: config.RATE_LIMIT_DOWNLOADS_PER_MINUTE,
      activationsPerKeyPerHour: config.RATE_LIMIT_ACTIVATIONS_PER_KEY_PER_HOUR,
      redis: calls,
      redisPrefix: config.REDIS_PREFIX,
      logger,
    }),
    close: async () => {
      redis?.disconnect();
    },
  };
}
