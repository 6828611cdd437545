import {
  classifyResult,
  LicensingClient,
  type ClientOptions,
  type KeyValueStore,
  type LicensingResult,
} from '../../libs/client/src/index.js';
import { fromBase64, toBase64 } from '../../libs/signatures/index.js';
import {
  keySetOf,
  sendJson,
  serve,
  signedStore,
  signingKey,
  type LocalServer,
  type Misbehaviour,
  type SignedStore,
  type SigningKey,
} from './servers.js';

/**
 * Spec 7 rule 2: RATE_LIMITED, INTERNAL_ERROR and connection failures never lock a customer out.
 * The offline grace, retries, the negative cache and shared calls in flight, each against a store
 * that misbehaves; every wait bounded by the client's timeout.
 */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let key: SigningKey;
const servers: LocalServer[] = [];
beforeAll(async () => {
  key = await signingKey();
});
afterAll(() => Promise.all(servers.map((s) => s.close())));

async function store(): Promise<SignedStore> {
  const server = await signedStore({
    productId: 12,
    key,
    licenses: { K: { activated: ['example.com'] }, SECOND: { activated: ['example.com'] } },
  });
  servers.push(server);
  return server;
}

function memoryStore(): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    get: (name) => data.get(name) ?? null,
    set: (name, value) => void data.set(name, value),
  };
}

const clientOf = (server: LocalServer, options: ClientOptions = {}) =>
  new LicensingClient(server.url, 12, { timeout: 2000, keys: keySetOf(key), ...options });

const elapsed = async <T>(run: () => Promise<T>): Promise<[T, number]> => {
  const started = Date.now();
  const value = await run();
  return [value, Date.now() - started];
};

describe('spec 7 rule 2: the offline grace keeps the last verified validation usable', () => {
  test.each<[Misbehaviour, string]>([
    ['refuse', 'a refused connection'],
    ['hang', 'a server that hangs past the timeout'],
    ['internal-error', 'INTERNAL_ERROR'],
    ['rate-limited', 'RATE_LIMITED'],
    ['html', 'an HTML error page'],
  ])('%s: the last good answer is given with stale: true and checked_at', async (mode, _name) => {
    const server = await store();
    const cache = memoryStore();
    // Long enough for a loaded machine's first answer; a hang is given up after it.
    const client = clientOf(server, { cache, timeout: 2000, retries: 0, negativeCacheTtl: 0 });
    const fresh = await client.validate('K', 'example.com');
    expect(fresh).toMatchObject({ success: true, data: { valid: true } });
    expect(fresh).not.toHaveProperty('stale');

    server.mode = mode;
    const [result, took] = await elapsed(() => client.validate('K', 'example.com'));
    expect(result).toMatchObject({
      success: true,
      data: fresh.data,
      message: '',
      code: '',
      stale: true,
      checked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      cause: { success: false },
    });
    expect(Date.now() - Date.parse(result.success ? result.checked_at! : '')).toBeLessThan(10_000);
    expect(classifyResult(result)).toBe('ok');
    // Bounded (a hang is given up after the timeout), with room for a loaded machine.
    expect(took).toBeLessThan(10_000);
  });

  test('a new client on the same store (the next start of the software) still has it', async () => {
    const server = await store();
    const cache = memoryStore();
    expect((await clientOf(server, { cache }).validate('K', 'example.com')).success).toBe(true);
    server.mode = 'internal-error';
    const later = clientOf(server, { cache, retries: 0 });
    expect(await later.validate('K', 'example.com')).toMatchObject({ success: true, stale: true });
  });

  test('never longer than the grace (default 72 h)', async () => {
    const server = await store();
    const cache = memoryStore();
    expect((await clientOf(server, { cache }).validate('K')).success).toBe(true);
    server.mode = 'refuse';
    const within = clientOf(server, { cache, retries: 0, now: () => Date.now() + 71 * HOUR });
    expect(await within.validate('K')).toMatchObject({ success: true, stale: true });
    const past = clientOf(server, { cache, retries: 0, now: () => Date.now() + 73 * HOUR });
    const result = await past.validate('K');
    expect(result).toMatchObject({ success: false, code: '' });
    expect(result.message).toMatch(/^Connection error:/);
    const shorter = clientOf(server, {
      cache,
      retries: 0,
      offlineGrace: HOUR,
      now: () => Date.now() + 2 * HOUR,
    });
    expect((await shorter.validate('K')).success).toBe(false);
  });

  test('never for an answer that was not verified: without keys nothing is kept', async () => {
    const server = await store();
    const cache = memoryStore();
    const unpinned = new LicensingClient(server.url, 12, { timeout: 2000, cache, retries: 0 });
    expect((await unpinned.validate('K')).success).toBe(true);
    expect([...cache.data.keys()]).toEqual([]);
    server.mode = 'internal-error';
    expect(await unpinned.validate('K')).toMatchObject({ success: false, code: 'INTERNAL_ERROR' });
  });

  test('never for an answer that fails verification, which is refused and not a reason for the grace', async () => {
    const server = await store();
    const cache = memoryStore();
    const client = clientOf(server, { cache, retries: 0 });
    expect((await client.validate('K')).success).toBe(true);
    server.mode = 'forged-valid';
    expect(await client.validate('K')).toMatchObject({ success: false, code: 'SIGNATURE_INVALID' });
    server.mode = 'unsigned';
    expect(await client.validate('K')).toMatchObject({ success: false, code: 'SIGNATURE_INVALID' });
  });

  test('the stored answer is checked again when used: an edited store gives no grace', async () => {
    const server = await signedStore({
      productId: 12,
      key,
      licenses: { S: { activated: ['example.com'], status: 'suspended' } },
    });
    servers.push(server);
    const cache = memoryStore();
    const client = clientOf(server, { cache, retries: 0, negativeCacheTtl: 0 });
    // The verified answer says not valid, and is what the store keeps.
    expect(await client.validate('S')).toMatchObject({ success: true, data: { valid: false } });
    const [name, stored] = [...cache.data].find(([n]) => n.startsWith('licensing:validate:'))!;
    const answer = JSON.parse(stored);
    const body = JSON.parse(new TextDecoder().decode(fromBase64(answer.body)!));
    server.mode = 'internal-error';
    expect(await client.validate('S')).toMatchObject({ success: false, code: 'INTERNAL_ERROR' });

    // Edited to say valid: true.
    body.data = { ...body.data, valid: true, status: 'active' };
    const edited = { ...answer, body: toBase64(new TextEncoder().encode(JSON.stringify(body))) };
    cache.data.set(name, JSON.stringify(edited));
    expect(await client.validate('S')).toMatchObject({ success: false, code: 'INTERNAL_ERROR' });
    // Without its signature.
    cache.data.set(name, JSON.stringify({ ...edited, headers: {} }));
    expect(await client.validate('S')).toMatchObject({ success: false, code: 'INTERNAL_ERROR' });
    cache.data.set(name, 'not json');
    expect(await client.validate('S')).toMatchObject({ success: false, code: 'INTERNAL_ERROR' });
  });

  test("never from another key's answer: a store entry moved under this key's name gives no grace", async () => {
    const server = await store();
    const cache = memoryStore();
    const client = clientOf(server, { cache, retries: 0, negativeCacheTtl: 0 });
    expect((await client.validate('SECOND')).success).toBe(true);
    const [entry] = [...cache.data].filter(([n]) => n.startsWith('licensing:validate:'));
    const second = entry![1];
    expect((await client.validate('K')).success).toBe(true);
    const [name] = [...cache.data.keys()].filter(
      (n) => n.startsWith('licensing:validate:') && cache.data.get(n) !== second,
    );
    server.mode = 'internal-error';
    expect(await client.validate('K')).toMatchObject({ success: true, stale: true });
    // SECOND's verified answer, kept under K's name: signed, but for another request's fields.
    cache.data.set(name!, second);
    expect(await client.validate('K')).toMatchObject({ success: false, code: 'INTERNAL_ERROR' });
  });

  test('a verified verdict replaces the last good answer: a suspended license is not revived by an outage', async () => {
    const licenses = { K: { activated: ['example.com'], status: 'active' } };
    const server = await signedStore({ productId: 12, key, licenses });
    servers.push(server);
    const cache = memoryStore();
    const client = clientOf(server, { cache, retries: 0, negativeCacheTtl: 0 });
    expect(await client.validate('K')).toMatchObject({ success: true, data: { valid: true } });
    licenses.K.status = 'suspended';
    const suspended = await client.validate('K');
    expect(suspended).toMatchObject({ success: true, data: { valid: false } });
    expect(classifyResult(suspended)).toBe('license');
    server.mode = 'internal-error';
    expect(await client.validate('K')).toMatchObject({ success: false, code: 'INTERNAL_ERROR' });
  });

  test('only for the same key, identifier and product', async () => {
    const server = await store();
    const cache = memoryStore();
    const client = clientOf(server, { cache, retries: 0 });
    expect((await client.validate('K', 'example.com')).success).toBe(true);
    server.mode = 'refuse';
    expect(await client.validate('K', 'example.com')).toMatchObject({ stale: true });
    expect((await client.validate('K', 'other.com')).success).toBe(false);
    expect((await client.validate('K')).success).toBe(false);
    expect((await client.validate('SECOND', 'example.com')).success).toBe(false);
    const otherProduct = new LicensingClient(server.url, 13, {
      keys: keySetOf(key),
      cache,
      retries: 0,
    });
    expect((await otherProduct.validate('K', 'example.com')).success).toBe(false);
  });

  test('the entitlements asked about keep an answer of their own', async () => {
    const server = await store();
    const client = clientOf(server, { cache: memoryStore(), retries: 0 });
    const asked = { identifier: 'example.com', entitlements: ['pro', 'updates-3y'] };
    expect((await client.validate('K', asked)).success).toBe(true);
    // A later validation without them does not take the place of the one with them.
    expect((await client.validate('K', 'example.com')).success).toBe(true);
    server.mode = 'refuse';
    expect(await client.validate('K', asked)).toMatchObject({ success: true, stale: true });
    expect(await client.validate('K', 'example.com')).toMatchObject({ stale: true });
    const other = { identifier: 'example.com', entitlements: ['pro'] };
    expect((await client.validate('K', other)).success).toBe(false);
  });

  test('never when the clock runs behind the latest signed time: CLOCK_TAMPERED', async () => {
    const server = await store();
    const cache = memoryStore();
    expect((await clientOf(server, { cache }).validate('K')).success).toBe(true);
    server.mode = 'refuse';
    const setBack = clientOf(server, { cache, retries: 0, now: () => Date.now() - DAY });
    const result = await setBack.validate('K');
    expect(result).toMatchObject({ success: false, code: 'CLOCK_TAMPERED' });
    expect(result.message).toMatch(/clock .* is behind a time the license server vouched for/);
    expect(classifyResult(result)).toBe('license');
  });

  test('nothing hangs: a store that never answers counts as empty', async () => {
    const server = await store();
    const silent: KeyValueStore = {
      get: () => new Promise(() => undefined),
      set: () => new Promise(() => undefined),
    };
    const client = clientOf(server, { cache: silent, timeout: 2000, retries: 0 });
    const [fresh, first] = await elapsed(() => client.validate('K'));
    expect(fresh.success).toBe(true);
    // Each call gives up on the store within its timeout; the bound leaves room for a loaded
    // machine, and is far below the test's own timeout a hung call would reach.
    expect(first).toBeLessThan(10_000);
    server.mode = 'refuse';
    const [failed, second] = await elapsed(() => client.validate('K'));
    expect(failed).toMatchObject({ success: false, code: '' });
    expect(second).toBeLessThan(10_000);
  });
});

describe('retries: only safe calls, only after transient failures, at most 2, within the timeout', () => {
  const safe: Array<[string, (c: LicensingClient) => Promise<LicensingResult<unknown>>]> = [
    ['activate', (c) => c.activate('K', 'example.com')],
    ['validate', (c) => c.validate('K', 'example.com')],
    ['checkUpdate', (c) => c.checkUpdate('K')],
  ];

  test.each(safe)('%s is retried after transient failures until it succeeds', async (_n, call) => {
    const server = await store();
    server.script.push('internal-error', 'refuse');
    // A timeout with room for both retries however slow the machine: each is sent only if it fits.
    const result = await call(clientOf(server, { timeout: 10_000 }));
    expect(result.success).toBe(true);
    expect(server.requests).toHaveLength(3);
  });

  test('at most 2 retries, with jittered exponential backoff between them', async () => {
    const server = await store();
    server.mode = 'internal-error';
    // A timeout with room for both retries however slow the machine: each is sent only if it fits.
    const result = await clientOf(server, { retryBaseDelay: 200, timeout: 10_000 }).validate('K');
    expect(result).toMatchObject({ success: false, code: 'INTERNAL_ERROR' });
    expect(server.requests).toHaveLength(3);
    const [first, second, third] = server.requests.map((r) => r.at) as [number, number, number];
    // 200 ms then 400 ms, each between half and all of it.
    expect(second - first).toBeGreaterThanOrEqual(95);
    expect(third - second).toBeGreaterThanOrEqual(195);
  });

  test.each<[string, (c: LicensingClient) => Promise<LicensingResult<unknown>>]>([
    ['deactivate', (c) => c.deactivate('K', 'example.com')],
    ['checkout', (c) => c.checkout('K', 'example.com')],
  ])('%s is never retried', async (_name, call) => {
    const server = await store();
    server.mode = 'internal-error';
    expect(await call(clientOf(server))).toMatchObject({ success: false, code: 'INTERNAL_ERROR' });
    expect(server.requests).toHaveLength(1);
  });

  test('Retry-After is honoured: the retry waits for it', async () => {
    const server = await store();
    server.retryAfter = '1';
    server.script.push('rate-limited');
    const result = await clientOf(server, { timeout: 10_000 }).validate('K');
    expect(result.success).toBe(true);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(990);
  });

  test('a Retry-After longer than the timeout leaves is not waited for: the failure comes back with it', async () => {
    const server = await store();
    server.retryAfter = '30';
    server.mode = 'rate-limited';
    const [result, took] = await elapsed(() => clientOf(server).validate('K'));
    expect(result).toMatchObject({ success: false, code: 'RATE_LIMITED', retryAfter: 30 });
    expect(server.requests).toHaveLength(1);
    // Far from the 30 s asked for, whatever the machine's load.
    expect(took).toBeLessThan(10_000);
  });

  test('license problems and refused signatures are not retried', async () => {
    const server = await store();
    expect(await clientOf(server).activate('UNKNOWN', 'a.com')).toMatchObject({
      code: 'LICENSE_INVALID',
    });
    server.mode = 'unsigned';
    expect(await clientOf(server).validate('K')).toMatchObject({ code: 'SIGNATURE_INVALID' });
    expect(server.requests).toHaveLength(2);
  });

  test('every wait is bounded by the timeout: a backoff that does not fit is not waited for', async () => {
    const server = await store();
    server.mode = 'internal-error';
    const client = clientOf(server, { timeout: 20_000, retryBaseDelay: 60_000 });
    const [result, took] = await elapsed(() => client.validate('K'));
    expect(result).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(server.requests).toHaveLength(1);
    // Far below both the backoff (30 s at least) and the timeout it would have waited out.
    expect(took).toBeLessThan(10_000);
  });

  test('a server that hangs uses the whole timeout once: no retry after it', async () => {
    const server = await store();
    server.mode = 'hang';
    const [result, took] = await elapsed(() => clientOf(server, { timeout: 300 }).validate('K'));
    expect(result.message).toBe('Connection error: no answer from the server within 0.3 seconds.');
    expect(server.requests).toHaveLength(1);
    expect(took).toBeLessThan(5000);
  });

  test('retries is 0 to 2', () => {
    for (const retries of [-1, 3, 1.5]) {
      expect(() => new LicensingClient('https://shop.example', 1, { retries })).toThrow(TypeError);
    }
  });
});

describe('negative cache: a transient failure is remembered briefly', () => {
  test('N identical calls in one page load make one request; another call makes its own', async () => {
    const server = await store();
    server.mode = 'internal-error';
    const client = clientOf(server, { retries: 0 });
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await client.validate('K', 'example.com'));
    expect(server.requests).toHaveLength(1);
    for (const result of results) expect(result).toMatchObject({ code: 'INTERNAL_ERROR' });
    await client.validate('K', 'other.com');
    expect(server.requests).toHaveLength(2);
  });

  test('for negativeCacheTtl milliseconds (default 60 s), then the next call asks again', async () => {
    const server = await store();
    server.mode = 'refuse';
    // The client's clock, moved by the test: the failure's age is what the test says it is.
    let now = Date.now();
    const client = clientOf(server, { retries: 0, negativeCacheTtl: 150, now: () => now });
    await client.checkUpdate();
    now += 149;
    await client.checkUpdate();
    expect(server.requests).toHaveLength(1);
    server.mode = 'ok';
    now += 1;
    expect((await client.checkUpdate()).success).toBe(true);
    expect(server.requests).toHaveLength(2);
  });

  test('successes and license problems are not remembered', async () => {
    const server = await store();
    const client = clientOf(server);
    await client.validate('K');
    await client.validate('K');
    await client.activate('UNKNOWN', 'a.com');
    await client.activate('UNKNOWN', 'a.com');
    expect(server.requests).toHaveLength(4);
  });

  test('with the offline grace, the remembered failure is still answered from it', async () => {
    const server = await store();
    const client = clientOf(server, { cache: memoryStore(), retries: 0 });
    expect((await client.validate('K')).success).toBe(true);
    server.mode = 'internal-error';
    for (let i = 0; i < 3; i++) {
      expect(await client.validate('K')).toMatchObject({ success: true, stale: true });
    }
    expect(server.requests).toHaveLength(2);
  });
});

describe('in-flight sharing: identical calls at the same time share one request', () => {
  test('five identical validations at once make one request and get the same answer', async () => {
    const server = await serve((_req, res) =>
      setTimeout(() => sendJson(res, 200, { data: { valid: true } }), 100),
    );
    servers.push(server);
    const client = new LicensingClient(server.url, 12, 2000);
    const results = await Promise.all(Array.from({ length: 5 }, () => client.validate('K')));
    expect(server.requests).toHaveLength(1);
    for (const result of results) expect(result).toEqual(results[0]);
    expect(results[0]).toMatchObject({ success: true, data: { valid: true } });
    // Each caller gets its own result object.
    expect(results[0]).not.toBe(results[1]);

    await Promise.all([client.validate('A'), client.validate('B'), client.checkUpdate()]);
    expect(server.requests).toHaveLength(4);
  });

  test('calls that are not safe to repeat are each sent (deactivate)', async () => {
    const server = await serve((_req, res) =>
      setTimeout(() => sendJson(res, 200, { data: {} }), 50),
    );
    servers.push(server);
    const client = new LicensingClient(server.url, 12, 2000);
    await Promise.all([client.deactivate('K', 'a.com'), client.deactivate('K', 'a.com')]);
    expect(server.requests).toHaveLength(2);
  });
});
