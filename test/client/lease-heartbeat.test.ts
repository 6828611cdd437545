import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  classifyResult,
  LicensingClient,
  type ClientOptions,
  type HeartbeatEvent,
  type HeartbeatOptions,
  type HeartbeatTimers,
  type KeyValueStore,
  type LicensingResult,
  type ValidationData,
} from '../../libs/client/src/index.js';
import {
  keySetOf,
  signedStore,
  signingKey,
  type LocalServer,
  type SignedStore,
  type SigningKey,
} from './servers.js';
import { API_BASE } from '../../libs/contracts/api-base.js';
import { eventually } from '../support/eventually.js';

/**
 * Activation leases: `heartbeat` renews one (a validate with the identifier) and `startHeartbeat`
 * keeps it alive, at a third of the lease, one call at a time, backing off after failures. The
 * timer tests run on timers they fire by hand: they assert what was scheduled, not how long
 * anything took.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOUR = 3_600_000;

let key: SigningKey;
const servers: LocalServer[] = [];
beforeAll(async () => {
  key = await signingKey();
});
afterAll(() => Promise.all(servers.map((s) => s.close())));

async function store(leaseMs?: number, status = 'active'): Promise<SignedStore> {
  const server = await signedStore({
    productId: 12,
    key,
    leaseMs,
    licenses: { K: { activated: ['example.com'], status } },
  });
  servers.push(server);
  return server;
}

const clientOf = (server: LocalServer, options: ClientOptions = {}) =>
  new LicensingClient(server.url, 12, { timeout: 3000, keys: keySetOf(key), ...options });

const validations = (server: LocalServer) =>
  server.requests.filter((r) => r.path === `${API_BASE}/licenses/validate`);

/** Timers fired by the test: what the heartbeat asked for, one pending at a time. */
function manualTimers() {
  const pending = new Map<number, () => void>();
  const delays: number[] = [];
  let last = 0;
  const timers: HeartbeatTimers = {
    set(callback, ms) {
      pending.set(++last, callback);
      delays.push(ms);
      return last;
    },
    clear(handle) {
      pending.delete(handle as number);
    },
  };
  return {
    timers,
    delays,
    pending,
    /** Runs the one pending timer now. */
    fire() {
      expect(pending.size).toBe(1);
      const [handle, callback] = [...pending][0]!;
      pending.delete(handle);
      callback();
    },
  };
}

type Report = [LicensingResult<ValidationData>, HeartbeatEvent];

/** What a heartbeat reports through `onResult`, to await one by one. */
function reports() {
  const seen: Report[] = [];
  let wake = () => {};
  return {
    seen,
    onResult: ((result, event) => {
      seen.push([result, event]);
      wake();
    }) satisfies HeartbeatOptions['onResult'],
    /** The `count`-th report (1 for the first), once it has come. */
    async nth(count: number): Promise<Report> {
      while (seen.length < count) await new Promise<void>((resolve) => (wake = resolve));
      return seen[count - 1]!;
    },
  };
}

function memoryStore(): KeyValueStore {
  const data = new Map<string, string>();
  return {
    get: (name) => data.get(name) ?? null,
    set: (name, value) => void data.set(name, value),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('lease heartbeat: heartbeat(key, identifier) renews the lease with a validate', () => {
  test('it sends a validate with the license key, the identifier and the product, and answers when the lease now ends', async () => {
    const server = await store(90_000);
    const client = clientOf(server);
    const before = Date.now();
    const result = await client.heartbeat('K', 'example.com');
    expect(result).toMatchObject({
      success: true,
      data: { valid: true, identifier_activated: true },
      code: '',
    });
    expect(validations(server)).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
    const fields = Object.fromEntries(new URLSearchParams(server.requests[0]!.body));
    expect(fields).toEqual({ license_key: 'K', identifier: 'example.com', product_id: '12' });
    const ends = Date.parse(result.success ? (result.data.lease_expires_at ?? '') : '');
    expect(ends).toBeGreaterThanOrEqual(before + 90_000);
    expect(ends).toBeLessThanOrEqual(Date.now() + 90_000);

    // Each heartbeat moves the end of the lease on.
    await sleep(20);
    const again = await client.heartbeat('K', 'example.com');
    expect(Date.parse(again.success ? (again.data.lease_expires_at ?? '') : '')).toBeGreaterThan(
      ends,
    );
  });

  test('without a lease the answer says lease_expires_at: null', async () => {
    const server = await store();
    const result = await clientOf(server).heartbeat('K', 'example.com');
    expect(result).toMatchObject({ success: true, data: { lease_expires_at: null } });
  });

  test('it is verified, retried and answered from the offline grace as validate is', async () => {
    const server = await store(90_000);
    const cache = memoryStore();
    const client = clientOf(server, { cache, retryBaseDelay: 10, negativeCacheTtl: 0 });
    server.script = ['forged-valid'];
    expect(await client.heartbeat('K', 'example.com')).toMatchObject({
      success: false,
      code: 'SIGNATURE_INVALID',
    });
    server.script = ['internal-error'];
    expect(await client.heartbeat('K', 'example.com')).toMatchObject({ success: true });
    expect(validations(server)).toHaveLength(3);
    server.mode = 'internal-error';
    const stale = await client.heartbeat('K', 'example.com');
    expect(stale).toMatchObject({ success: true, stale: true, cause: { code: 'INTERNAL_ERROR' } });
  });

  test('without an identifier nothing is sent: a validate without one would renew nothing', async () => {
    const server = await store(90_000);
    const result = await clientOf(server).heartbeat('K', '');
    expect(result).toMatchObject({ success: false, code: 'INVALID_REQUEST', httpStatus: 0 });
    expect(server.requests).toHaveLength(0);
    expect(() => clientOf(server).startHeartbeat('K', '')).toThrow(TypeError);
    expect(() => clientOf(server).startHeartbeat('', 'example.com')).toThrow(TypeError);
  });

  test('a lapsed activation is gone: the heartbeat answers identifier_activated false, a license verdict', async () => {
    const server = await store(300);
    const client = clientOf(server);
    expect(await client.heartbeat('K', 'example.com')).toMatchObject({ success: true });
    await sleep(450);
    const lapsed = await client.heartbeat('K', 'example.com');
    expect(lapsed).toMatchObject({
      success: true,
      data: { identifier_activated: false, lease_expires_at: null },
    });
    expect(classifyResult(lapsed)).toBe('license');
  });
});

describe('lease heartbeat: startHeartbeat keeps the lease alive at a third of it', () => {
  test('the first heartbeat goes at once, each next one at a third of the lease its answer gave', async () => {
    const server = await store(90_000);
    const manual = manualTimers();
    const seen = reports();
    const heartbeat = clientOf(server).startHeartbeat('K', 'example.com', {
      timers: manual.timers,
      onResult: seen.onResult,
    });
    const [first, event] = await seen.nth(1);
    expect(first).toMatchObject({ success: true, data: { identifier_activated: true } });
    expect(event).toMatchObject({ status: 'renewed', failures: 0 });
    expect(event.lease).toBeGreaterThan(88_000);
    expect(event.lease).toBeLessThanOrEqual(90_000);
    expect(manual.delays).toHaveLength(1);
    expect(manual.delays[0]).toBe(event.next);
    expect(manual.delays[0]).toBeGreaterThan(29_000);
    expect(manual.delays[0]).toBeLessThanOrEqual(30_000);
    expect(validations(server)).toHaveLength(1);

    // The next answer gives a shorter lease: the next heartbeat comes sooner.
    server.leaseMs = 30_000;
    manual.fire();
    await seen.nth(2);
    expect(validations(server)).toHaveLength(2);
    expect(manual.delays[1]).toBeGreaterThan(9_000);
    expect(manual.delays[1]).toBeLessThanOrEqual(10_000);
    heartbeat.stop();
    await heartbeat.stopped;
  });

  test.each([
    ['signed: the signature created time', true],
    ['unsigned: the Date header', false],
  ])(
    'the lease is measured from the server time of the answer (%s), not the device clock',
    async (_name, signed) => {
      const server = await store(90_000);
      const manual = manualTimers();
      const seen = reports();
      // The device's clock is two hours ahead of the server's.
      const client = new LicensingClient(server.url, 12, {
        timeout: 3000,
        keys: signed ? keySetOf(key) : undefined,
        clockTolerance: 3 * HOUR,
        now: () => Date.now() + 2 * HOUR,
      });
      const heartbeat = client.startHeartbeat('K', 'example.com', {
        timers: manual.timers,
        onResult: seen.onResult,
      });
      const [result, event] = await seen.nth(1);
      expect(result.success).toBe(true);
      // The Date header and `created` name the second: at most a second more than the lease.
      expect(event.lease).toBeGreaterThan(88_000);
      expect(event.lease).toBeLessThanOrEqual(91_000);
      expect(manual.delays[0]).toBeGreaterThan(29_000);
      heartbeat.stop();
    },
  );

  test('never two heartbeats at once: the next is scheduled only once the slow answer has come', async () => {
    const server = await store(90_000);
    server.latency = 300;
    const log: string[] = [];
    const fetchLogged: typeof fetch = async (input, init) => {
      log.push('request');
      const response = await fetch(input, init);
      const body = await response.arrayBuffer();
      log.push('answer');
      return new Response(body, response);
    };
    // Timers that fire at once: a heartbeat that did not wait for its answer would overlap.
    const timers: HeartbeatTimers = {
      set(callback) {
        log.push('scheduled');
        return setImmediate(callback);
      },
      clear: (handle) => clearImmediate(handle as NodeJS.Immediate),
    };
    const seen = reports();
    const heartbeat = clientOf(server, { fetch: fetchLogged }).startHeartbeat('K', 'example.com', {
      timers,
      onResult: (result, event) => {
        log.push('result');
        seen.onResult(result, event);
      },
    });
    await seen.nth(3);
    heartbeat.stop();
    await heartbeat.stopped;
    expect(log.slice(0, 12)).toEqual(
      Array.from({ length: 3 }, () => ['request', 'answer', 'result', 'scheduled']).flat(),
    );
    expect(validations(server)).toHaveLength(seen.seen.length);
  });

  test('stop() cancels the next heartbeat, and the answer of one in flight is not reported', async () => {
    const server = await store(90_000);
    const manual = manualTimers();
    const seen = reports();
    const client = clientOf(server);
    const heartbeat = client.startHeartbeat('K', 'example.com', {
      timers: manual.timers,
      onResult: seen.onResult,
    });
    await seen.nth(1);
    expect(manual.pending.size).toBe(1);
    expect(heartbeat.running).toBe(true);
    heartbeat.stop();
    heartbeat.stop();
    expect(heartbeat.running).toBe(false);
    expect(manual.pending.size).toBe(0);
    await heartbeat.stopped;

    // Stopped while its call waits for an answer the server holds back.
    let answer = () => {};
    server.held = new Promise<void>((resolve) => (answer = resolve));
    const slow = client.startHeartbeat('K', 'example.com', {
      timers: manual.timers,
      onResult: seen.onResult,
    });
    await eventually('the heartbeat reaches the server', () => validations(server).length === 2);
    slow.stop();
    answer();
    await slow.stopped;
    expect(validations(server)).toHaveLength(2);
    expect(seen.seen).toHaveLength(1);
    expect(manual.pending.size).toBe(0);

    // An AbortSignal stops it too, already aborted or later.
    server.held = undefined;
    const controller = new AbortController();
    const aborted = client.startHeartbeat('K', 'example.com', {
      timers: manual.timers,
      onResult: seen.onResult,
      signal: controller.signal,
    });
    await seen.nth(2);
    controller.abort();
    expect(aborted.running).toBe(false);
    expect(manual.pending.size).toBe(0);
    const never = client.startHeartbeat('K', 'example.com', { signal: controller.signal });
    expect(never.running).toBe(false);
    await never.stopped;
    expect(validations(server)).toHaveLength(3);
  });

  test('stop() from onResult: nothing more is scheduled', async () => {
    const server = await store(90_000);
    const manual = manualTimers();
    let calls = 0;
    const heartbeat = clientOf(server).startHeartbeat('K', 'example.com', {
      timers: manual.timers,
      onResult: () => {
        calls++;
        heartbeat.stop();
      },
    });
    await heartbeat.stopped;
    expect(calls).toBe(1);
    expect(manual.delays).toEqual([]);
  });

  test('an answer without a lease: checked again after noLeaseInterval (default one hour), or ended when it is null', async () => {
    const server = await store();
    const manual = manualTimers();
    const seen = reports();
    const client = clientOf(server);
    const heartbeat = client.startHeartbeat('K', 'example.com', {
      timers: manual.timers,
      onResult: seen.onResult,
    });
    expect((await seen.nth(1))[1]).toEqual({
      status: 'no-lease',
      next: HOUR,
      lease: null,
      failures: 0,
    });
    expect(manual.delays).toEqual([HOUR]);
    // The plan gains a lease: the next check finds it and keeps it.
    server.leaseMs = 60_000;
    manual.fire();
    expect((await seen.nth(2))[1]).toMatchObject({ status: 'renewed' });
    expect(manual.delays[1]).toBeLessThanOrEqual(20_000);
    heartbeat.stop();

    server.leaseMs = undefined;
    const shorter = client.startHeartbeat('K', 'example.com', {
      timers: manual.timers,
      onResult: seen.onResult,
      noLeaseInterval: 5 * 60_000,
    });
    expect((await seen.nth(3))[1]).toMatchObject({ status: 'no-lease', next: 300_000 });
    shorter.stop();

    const once = client.startHeartbeat('K', 'example.com', {
      timers: manual.timers,
      onResult: seen.onResult,
      noLeaseInterval: null,
    });
    expect((await seen.nth(4))[1]).toEqual({
      status: 'ended',
      next: null,
      lease: null,
      failures: 0,
    });
    await once.stopped;
    expect(once.running).toBe(false);
    expect(manual.delays).toHaveLength(3);
    expect(() =>
      client.startHeartbeat('K', 'example.com', { noLeaseInterval: 0, timers: manual.timers }),
    ).toThrow(TypeError);
  });

  test.each([
    ['the activation lapsed (identifier not activated)', 'active', 'other.com'],
    ['the license is not valid (suspended)', 'suspended', 'example.com'],
  ])('a verdict ends the heartbeat: %s', async (_name, status, identifier) => {
    const server = await store(90_000, status);
    const manual = manualTimers();
    const seen = reports();
    const heartbeat = clientOf(server).startHeartbeat('K', identifier, {
      timers: manual.timers,
      onResult: seen.onResult,
    });
    const [result, event] = await seen.nth(1);
    expect(classifyResult(result)).toBe('license');
    expect(event).toMatchObject({ status: 'ended', next: null });
    await heartbeat.stopped;
    expect(heartbeat.running).toBe(false);
    expect(manual.delays).toEqual([]);
  });

  test('after a failure it backs off: from retryDelay, doubling, never slower than the regular interval, back to it once renewed', async () => {
    const server = await store(600_000);
    const manual = manualTimers();
    const seen = reports();
    const client = clientOf(server, { retries: 0, negativeCacheTtl: 0 });
    const heartbeat = client.startHeartbeat('K', 'example.com', {
      timers: manual.timers,
      onResult: seen.onResult,
      retryDelay: 10_000,
    });
    await seen.nth(1);
    const regular = manual.delays[0]!;
    expect(regular).toBeGreaterThan(199_000);
    server.mode = 'internal-error';
    for (let n = 2; n <= 8; n++) {
      manual.fire();
      const [result, event] = await seen.nth(n);
      expect(result).toMatchObject({ success: false, code: 'INTERNAL_ERROR' });
      expect(event).toMatchObject({ status: 'retrying', failures: n - 1, lease: null });
    }
    const backoff = manual.delays.slice(1);
    // 10 s, 20 s, 40 s, 80 s, 160 s with up to 20 % jitter, then the regular interval.
    [10_000, 20_000, 40_000, 80_000, 160_000].forEach((base, i) => {
      expect(backoff[i]).toBeGreaterThanOrEqual(base);
      expect(backoff[i]).toBeLessThanOrEqual(Math.min(base * 1.2, regular));
    });
    expect(backoff.slice(5)).toEqual([regular, regular]);
    expect(validations(server)).toHaveLength(8);

    server.mode = 'ok';
    manual.fire();
    expect((await seen.nth(9))[1]).toMatchObject({ status: 'renewed', failures: 0 });
    expect(manual.delays[8]).toBeGreaterThan(199_000);
    heartbeat.stop();
  });

  test("a retry never comes before the server's Retry-After, nor before the client's negative cache forgets the failure", async () => {
    const server = await store(600_000);
    server.mode = 'rate-limited';
    server.retryAfter = '120';
    const manual = manualTimers();
    const seen = reports();
    const options = { timers: manual.timers, onResult: seen.onResult, retryDelay: 1000 };
    const limited = clientOf(server, { retries: 0, negativeCacheTtl: 0 }).startHeartbeat(
      'K',
      'example.com',
      options,
    );
    expect((await seen.nth(1))[1]).toMatchObject({ status: 'retrying', failures: 1 });
    expect(manual.delays[0]).toBeGreaterThanOrEqual(120_000);
    limited.stop();

    server.mode = 'internal-error';
    // The default negative cache remembers a failure for a minute: an earlier retry would only
    // get the remembered failure, without a request.
    const cached = clientOf(server, { retries: 0 }).startHeartbeat('K', 'example.com', options);
    await seen.nth(2);
    expect(manual.delays[1]).toBeGreaterThanOrEqual(60_000);
    cached.stop();
  });

  test('an answer from the offline grace renewed nothing: it is reported (still ok for the software) and retried with the backoff', async () => {
    const server = await store(600_000);
    const manual = manualTimers();
    const seen = reports();
    const client = clientOf(server, { cache: memoryStore(), retries: 0, negativeCacheTtl: 0 });
    const heartbeat = client.startHeartbeat('K', 'example.com', {
      timers: manual.timers,
      onResult: seen.onResult,
      retryDelay: 10_000,
    });
    await seen.nth(1);
    server.mode = 'refuse';
    manual.fire();
    const [result, event] = await seen.nth(2);
    expect(result).toMatchObject({ success: true, stale: true });
    expect(classifyResult(result)).toBe('ok');
    expect(event).toMatchObject({ status: 'retrying', failures: 1, lease: null });
    expect(manual.delays[1]).toBeLessThanOrEqual(12_000);
    heartbeat.stop();
  });

  test('a callback that throws does not stop the heartbeat', async () => {
    const server = await store(90_000);
    const manual = manualTimers();
    const heartbeat = clientOf(server).startHeartbeat('K', 'example.com', {
      timers: manual.timers,
      onResult: () => {
        throw new Error('display failed');
      },
    });
    await eventually('the next heartbeat is scheduled', () => manual.pending.size > 0);
    expect(heartbeat.running).toBe(true);
    heartbeat.stop();
  });
});

describe('lease heartbeat: the default timers', () => {
  test('renew a short lease again and again, a third of it apart', async () => {
    // 6 s: a 2 s interval, so a heartbeat late by up to 4 s on a busy machine still finds the
    // activation (the test server lapses it as the service does).
    const server = await store(6000);
    const seen = reports();
    const heartbeat = clientOf(server).startHeartbeat('K', 'example.com', {
      onResult: seen.onResult,
    });
    await seen.nth(3);
    heartbeat.stop();
    await heartbeat.stopped;
    expect(seen.seen.map(([, event]) => event.status)).toEqual(['renewed', 'renewed', 'renewed']);
    const arrivals = validations(server).map((r) => r.at);
    expect(arrivals).toHaveLength(3);
    // Only lower bounds: a busy machine makes the heartbeat late, never early.
    expect(arrivals[1]! - arrivals[0]!).toBeGreaterThanOrEqual(1900);
    expect(arrivals[2]! - arrivals[1]!).toBeGreaterThanOrEqual(1900);
  });

  test('never keep a Node program running: it exits with a heartbeat still scheduled', async () => {
    const server = await store(3 * HOUR);
    const script = `
      const { LicensingClient } = await import('./libs/client/src/index.ts');
      const client = new LicensingClient(${JSON.stringify(server.url)}, 12);
      client.startHeartbeat('K', 'example.com', {
        onResult: (result, event) => console.log(event.status, event.next),
      });
    `;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    // A program kept alive would only end when this test kills it.
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    expect(stdout).toMatch(/^renewed \d+\n$/);
    expect(Number(stdout.split(' ')[1])).toBeGreaterThan(HOUR / 2);
    expect(code).toBe(0);
  }, 60_000);
});
