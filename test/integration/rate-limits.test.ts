import { once } from 'node:events';
import request from 'supertest';
import { createLogger } from '../../libs/logging/index.js';
import { API_BASE } from '../../libs/contracts/api-base.js';
import { createGatewayApp } from '../../services/gateway/app.js';
import {
  connectRedis,
  rateLimitsFromConfig,
} from '../../services/gateway/rate-limits/rate-limits.js';
import {
  RateLimitCalls,
  RedisSlidingWindowStore,
} from '../../services/gateway/rate-limits/sliding-window.js';
import type { Options } from 'express-rate-limit';
import { bootSystem, testSigning, type TestSystem } from '../support/system.js';

const REDIS_URL = process.env.REDIS_URL;
const logger = createLogger('test', 'silent');

describe('spec 8: activate calls per license key', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await bootSystem({ RATE_LIMIT_ACTIVATIONS_PER_KEY_PER_HOUR: '3' });
  });
  afterAll(() => system?.stop());

  test('past the per-key limit activate gets RATE_LIMITED (429) with Retry-After, and nothing changes', async () => {
    const { key } = await system.license({ activation_limit: 10 });
    for (let i = 0; i < 3; i++) {
      const ok = await system.post('activate', { license_key: key, identifier: `s${i}.com` });
      expect(ok.status).toBe(200);
    }
    const limited = await system.post('activate', { license_key: key, identifier: 'late.com' });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: { code: 'RATE_LIMITED', message: expect.any(String) } });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    const license = await system.transport.call('license.getLicense', { license_key: key });
    expect(license.activations_used).toBe(3);
    expect(license.rejected_attempts).toEqual([]);
  });

  test('the limit counts each key on its own, and dlid counts as the same key', async () => {
    const first = await system.license();
    const second = await system.license();
    for (let i = 0; i < 3; i++) {
      await system.post('activate', { dlid: first.key, identifier: `a${i}.com` });
    }
    expect(
      (await system.post('activate', { license_key: first.key, identifier: 'x.com' })).status,
    ).toBe(429);
    expect(
      (await system.post('activate', { license_key: second.key, identifier: 'x.com' })).status,
    ).toBe(200);
  });

  test('the per-key limit counts activate calls over one hour, not one minute', async () => {
    const { key } = await system.license({ activation_limit: 10 });
    const first = await system.post('activate', { license_key: key, identifier: 'h0.com' });
    expect(first.headers['ratelimit-policy']).toMatch(/"activate-key"; q=3; w=3600(;|,|$)/);
    for (let i = 1; i < 3; i++) {
      await system.post('activate', { license_key: key, identifier: `h${i}.com` });
    }
    const limited = await system.post('activate', { license_key: key, identifier: 'late.com' });
    expect(limited.status).toBe(429);
    // The first call of the hour frees its slot only once the hour has passed.
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(60);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(3600);
  });

  test('validate and deactivate are not counted against the per-key activate limit', async () => {
    const { key } = await system.license();
    for (let i = 0; i < 5; i++) {
      expect((await system.post('validate', { license_key: key })).status).toBe(200);
    }
    expect((await system.post('activate', { license_key: key, identifier: 'a.com' })).status).toBe(
      200,
    );
  });
});

describe('spec 8: per-IP limit of the license operations', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await bootSystem({ RATE_LIMIT_PER_IP_PER_MINUTE: '5' });
  });
  afterAll(() => system?.stop());

  test('past the per-IP limit every license operation gets RATE_LIMITED (429), changing nothing', async () => {
    const { key } = await system.license();
    for (let i = 0; i < 5; i++) {
      expect((await system.post('validate', { license_key: key })).status).toBe(200);
    }
    for (const operation of ['validate', 'activate', 'deactivate'] as const) {
      const res = await system.post(operation, { license_key: key, identifier: 'a.com' });
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('RATE_LIMITED');
      expect(res.headers['retry-after']).toBeDefined();
    }
    const license = await system.transport.call('license.getLicense', { license_key: key });
    expect(license.check_count).toBe(5);
    expect(license.activations_used).toBe(0);
  });
});

const withRedis = REDIS_URL ? describe : describe.skip;
withRedis('rate limits with Redis', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await bootSystem({ REDIS_URL: REDIS_URL!, RATE_LIMIT_PER_IP_PER_MINUTE: '4' });
  });
  afterAll(() => system?.stop());

  test('gateway replicas share their counts through Redis', async () => {
    const second = rateLimitsFromConfig(system.config, logger);
    try {
      const otherGateway = createGatewayApp({
        transport: system.transport,
        logger,
        trustProxy: false,
        rateLimits: second.limits,
        signing: await testSigning(),
      });
      const { key } = await system.license();
      const validate = (app: Parameters<typeof request>[0]) =>
        request(app).post(`${API_BASE}/licenses/validate`).type('form').send(`license_key=${key}`);
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await validate(system.running.gatewayUrl)).status);
        statuses.push((await validate(otherGateway)).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await second.close();
    }
  });
});

withRedis('spec 8: the shared (Redis) limit is a sliding window', () => {
  let redis: ReturnType<typeof connectRedis>;
  beforeAll(async () => {
    redis = connectRedis(REDIS_URL!, logger);
    // Commands are not queued while the connection opens (a down Redis must not delay requests).
    await once(redis, 'ready');
  });
  afterAll(() => redis?.disconnect());
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  function store(windowMs: number, limit: number) {
    const created = new RedisSlidingWindowStore(
      new RateLimitCalls(redis),
      `test:rl:${Date.now()}:${Math.random()}:`,
    );
    created.init({ windowMs, limit } as Options);
    return created;
  }

  test('past the limit a request is refused, with the time until a slot frees', async () => {
    const limited = store(60_000, 2);
    const hits = [];
    for (let i = 0; i < 3; i++) hits.push(await limited.increment('ip'));
    expect(hits.map((h) => h.totalHits)).toEqual([1, 2, 3]);
    const waitMs = hits[2]!.resetTime!.getTime() - Date.now();
    expect(waitMs).toBeGreaterThan(0);
    expect(waitMs).toBeLessThanOrEqual(60_000);
  });

  test('no burst across a window boundary: the limit holds for every span of the window', async () => {
    // A at 0 s, B at 3 s, C at 6.1 s (A has left the 6 s window), then D at once: B and C are
    // still inside it, so D is refused. A fixed window opened by A would have admitted D.
    // Sleeps only ever overshoot: B finds A in the window unless it comes 3 s late, and D stays
    // refused unless it comes 2.9 s late, far more than a loaded machine adds.
    const limited = store(6_000, 2);
    expect((await limited.increment('ip')).totalHits).toBe(1);
    await sleep(3_000);
    expect((await limited.increment('ip')).totalHits).toBe(2);
    await sleep(3_100);
    expect((await limited.increment('ip')).totalHits).toBe(2);
    expect((await limited.increment('ip')).totalHits).toBe(3);
  });
});

describe('an unreachable Redis', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await bootSystem({
      REDIS_URL: 'redis://127.0.0.1:1',
      RATE_LIMIT_PER_IP_PER_MINUTE: '1',
    });
  });
  afterAll(() => system?.stop());

  test('lets requests through (limits fail open) instead of hanging or failing them', async () => {
    const { key } = await system.license();
    for (let i = 0; i < 3; i++) {
      expect((await system.post('validate', { license_key: key })).status).toBe(200);
    }
  });
});
