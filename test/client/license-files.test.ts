import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  classifyResult,
  jsonFileStore,
  LicensingClient,
  verifyLicenseFile,
  type KeyValueStore,
  type LicensingResult,
} from '../../libs/client/src/index.js';
import { toBase64Url } from '../../libs/signatures/index.js';
import {
  keySetOf,
  licenseFileOf,
  signedStore,
  signingKey,
  type LocalServer,
  type SignedStore,
  type SigningKey,
} from './servers.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/**
 * Offline license files: `checkout` gets one, `verifyLicenseFile` checks it against the pinned
 * keys only, with no request, refusing each way a file can be wrong with its own code.
 */
const DAY = 86_400_000;
const TIMEOUT_MS = 2000;

let key: SigningKey;
let older: SigningKey;
let stranger: SigningKey;
let server: SignedStore;
const servers: LocalServer[] = [];
beforeAll(async () => {
  [key, older, stranger] = await Promise.all([signingKey(), signingKey(), signingKey()]);
  server = await signedStore({
    productId: 12,
    key,
    licenses: { K: { activated: ['example.com'] }, OTHER: {} },
  });
  servers.push(server);
});
afterAll(() => Promise.all(servers.map((s) => s.close())));

/** An in-memory store, as the `cache` option takes one. */
function memoryStore(): KeyValueStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    get: (name) => data.get(name) ?? null,
    set: (name, value) => void data.set(name, value),
  };
}

const client = (options: ConstructorParameters<typeof LicensingClient>[2] & object = {}) =>
  new LicensingClient(server.url, 12, {
    timeout: TIMEOUT_MS,
    keys: keySetOf(key, older),
    ...options,
  });

/** A file for product 12 and example.com, issued now for a day, by `signer`. */
const fileBy = (
  signer: SigningKey,
  payload: Parameters<typeof licenseFileOf>[1] = { product_id: 12, identifier: 'example.com' },
) => licenseFileOf(signer, payload);

const expectCode = (result: LicensingResult<unknown>, code: string, message: RegExp) => {
  expect(result).toMatchObject({ success: false, data: null, code });
  expect(result.message).toMatch(message);
  expect(classifyResult(result)).toBe('license');
};

describe('checkout: an offline license file for an activated identifier', () => {
  test('POST /licenses/checkout with license_key, identifier, product_id and ttl; the file verifies', async () => {
    const result = await client().checkout('K', 'example.com', 3600);
    if (!result.success) throw new Error(result.message);
    expect(result.data).toEqual({
      license_file: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      issued_at: expect.any(String),
      expires_at: expect.any(String),
    });
    expect(Date.parse(result.data.expires_at) - Date.parse(result.data.issued_at)).toBe(3_600_000);
    const request = server.requests.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', path: `${API_BASE}/licenses/checkout` });
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
      license_key: 'K',
      identifier: 'example.com',
      ttl: '3600',
      product_id: '12',
    });

    const verified = await client().verifyLicenseFile(result.data.license_file, {
      identifier: 'example.com',
    });
    expect(verified).toEqual({
      success: true,
      data: {
        valid: true,
        status: 'active',
        license_key: 'K',
        product: 'Test Plugin',
        plan: 'Single site',
        activation_type: 'domain',
        activation_limit: 3,
        activations_used: 1,
        expires_at: null,
        identifier_activated: true,
        // A file without entitlements (as issued before they existed) grants none.
        entitlements: [],
        entitlements_missing: [],
        code: null,
        // Nor expiry terms: a file without them is on the spec's (no grace, no update limit).
        in_grace: false,
        grace_ends_at: null,
        updates_until: null,
        identifier: 'example.com',
        product_id: 12,
        issued_at: result.data.issued_at,
        lease_expires_at: result.data.expires_at,
      },
      message: '',
      code: '',
      httpStatus: 0,
    });
    expect(classifyResult(verified)).toBe('ok');
  });

  test('refusals come back as activate gives them: ACTIVATION_NOT_FOUND, PRODUCT_MISMATCH, LICENSE_INVALID', async () => {
    expect(await client().checkout('K', 'elsewhere.com')).toMatchObject({
      success: false,
      code: 'ACTIVATION_NOT_FOUND',
      httpStatus: 404,
    });
    const other = new LicensingClient(server.url, 13, { timeout: TIMEOUT_MS, keys: keySetOf(key) });
    expect(await other.checkout('K', 'example.com')).toMatchObject({ code: 'PRODUCT_MISMATCH' });
    expect(await client().checkout('NOPE', 'example.com')).toMatchObject({
      code: 'LICENSE_INVALID',
    });
  });

  test('a checkout whose file is not signed by a pinned key is refused, even in a signed answer', async () => {
    const rogue = await signedStore({
      productId: 12,
      key: stranger,
      licenses: { K: { activated: ['example.com'] } },
    });
    servers.push(rogue);
    // The answer is signed by the stranger too, so pin it for answers only: the file is the test.
    const pinnedForAnswers = new LicensingClient(rogue.url, 12, {
      timeout: TIMEOUT_MS,
      keys: keySetOf(stranger),
    });
    expect((await pinnedForAnswers.checkout('K', 'example.com')).success).toBe(true);
    const strict = new LicensingClient(rogue.url, 12, { timeout: TIMEOUT_MS, keys: keySetOf(key) });
    expectCode(await strict.checkout('K', 'example.com'), 'SIGNATURE_INVALID', /not pinned/);
  });

  test('checkout is not retried: each call issues a new file', async () => {
    const before = server.requests.length;
    server.script.push('internal-error');
    const result = await client().checkout('K', 'example.com');
    expect(result).toMatchObject({ success: false, code: 'INTERNAL_ERROR' });
    expect(server.requests.length - before).toBe(1);
  });
});

describe('verifyLicenseFile: offline, against the pinned keys only', () => {
  test('makes no request', async () => {
    const before = server.requests.length;
    expect((await client().verifyLicenseFile(fileBy(key))).success).toBe(true);
    expect(server.requests.length).toBe(before);
  });

  test('a file signed by an older key still pinned verifies; one by a key not pinned is refused', async () => {
    expect((await client().verifyLicenseFile(fileBy(older))).success).toBe(true);
    expectCode(
      await client().verifyLicenseFile(fileBy(stranger)),
      'SIGNATURE_INVALID',
      /^The license file failed verification: it is signed by a key that is not pinned/,
    );
  });

  test('a file naming a pinned key but signed by another key is refused', async () => {
    const forged = licenseFileOf(key, { product_id: 12, identifier: 'example.com' }, stranger);
    expectCode(await client().verifyLicenseFile(forged), 'SIGNATURE_INVALID', /does not match/);
  });

  test.each([
    ['the header', 0],
    ['the payload', 1],
    ['the signature', 2],
  ])('a file with a flipped byte (in %s) is refused', async (_where, part) => {
    const file = fileBy(key);
    const parts = file.split('.');
    const text = parts[part]!;
    const at = Math.floor(text.length / 2);
    parts[part] = text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    const flipped = parts.join('.');
    expect(flipped).not.toBe(file);
    expect((await client().verifyLicenseFile(file)).success).toBe(true);
    expectCode(
      await client().verifyLicenseFile(flipped),
      'SIGNATURE_INVALID',
      /failed verification/,
    );
  });

  test('a payload changed and re-encoded (a longer lease) is refused', async () => {
    const [head, payload, signature] = fileBy(key).split('.') as [string, string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const longer = { ...decoded, expires_at: '2099-01-01T00:00:00.000Z', exp: 4_070_908_800 };
    const forged = `${head}.${toBase64Url(Buffer.from(JSON.stringify(longer)))}.${signature}`;
    expectCode(await client().verifyLicenseFile(forged), 'SIGNATURE_INVALID', /does not match/);
  });

  test.each(['', 'not a file', 'a.b.c', null, undefined])(
    'what is not a license file (%p) is refused',
    async (file) => {
      expectCode(await client().verifyLicenseFile(file), 'SIGNATURE_INVALID', /not a license file/);
    },
  );

  test('a signed file of another version than 1 is refused', async () => {
    const file = licenseFileOf(key, { product_id: 12, identifier: 'example.com', ver: 2 as 1 });
    expectCode(await client().verifyLicenseFile(file), 'SIGNATURE_INVALID', /version 1/);
  });

  test('without pinned keys no file verifies', async () => {
    const unpinned = new LicensingClient(server.url, 12, TIMEOUT_MS);
    expectCode(await unpinned.verifyLicenseFile(fileBy(key)), 'SIGNATURE_INVALID', /no public key/);
  });

  test('a file past its lease is refused with LICENSE_FILE_EXPIRED', async () => {
    const issued = new Date(Date.now() - 3 * DAY).toISOString();
    const expired = new Date(Date.now() - DAY).toISOString();
    const file = licenseFileOf(key, {
      product_id: 12,
      identifier: 'example.com',
      issued_at: issued,
      expires_at: expired,
    });
    expectCode(
      await client().verifyLicenseFile(file),
      'LICENSE_FILE_EXPIRED',
      new RegExp(`lease ended at ${expired}`),
    );
    // The same file, checked at a time within its lease.
    expect((await client().verifyLicenseFile(file, { now: Date.now() - 2 * DAY })).success).toBe(
      true,
    );
  });

  test('a file for another identifier is refused with IDENTIFIER_MISMATCH (exact comparison with the normalised identifier)', async () => {
    const file = fileBy(key);
    expectCode(
      await client().verifyLicenseFile(file, { identifier: 'other.com' }),
      'IDENTIFIER_MISMATCH',
      /is for "example.com", not "other.com"/,
    );
    expectCode(
      await client().verifyLicenseFile(file, { identifier: 'www.example.com' }),
      'IDENTIFIER_MISMATCH',
      /not "www.example.com"/,
    );
    expect((await client().verifyLicenseFile(file, { identifier: 'example.com' })).success).toBe(
      true,
    );
  });

  test('a file for another product is refused with PRODUCT_MISMATCH', async () => {
    const file = licenseFileOf(key, { product_id: 13, identifier: 'example.com' });
    expectCode(
      await client().verifyLicenseFile(file),
      'PRODUCT_MISMATCH',
      /is for product 13, not product 12/,
    );
  });

  test('a license that was not valid when the file was issued is a license problem, as from validate', async () => {
    const file = licenseFileOf(key, {
      product_id: 12,
      identifier: 'example.com',
      license: {
        valid: false,
        status: 'suspended',
        license_key: 'K',
        product: 'Test Plugin',
        plan: 'Single site',
        activation_type: 'domain',
        activation_limit: 3,
        activations_used: 1,
        expires_at: null,
      },
    });
    const result = await client().verifyLicenseFile(file);
    expect(result).toMatchObject({ success: true, data: { valid: false, status: 'suspended' } });
    expect(classifyResult(result)).toBe('license');
  });

  test('the standalone verifyLicenseFile needs no store URL', async () => {
    const options = { keys: keySetOf(key), productId: 12 };
    expect((await verifyLicenseFile(fileBy(key), options)).success).toBe(true);
    expect(await verifyLicenseFile(fileBy(key), { ...options, productId: 5 })).toMatchObject({
      code: 'PRODUCT_MISMATCH',
    });
  });
});

describe('clock-tamper detection: a clock set back behind a signed time', () => {
  test('a file checked before its own issued_at (beyond the tolerance) is refused with CLOCK_TAMPERED', async () => {
    const file = fileBy(key);
    const result = await client().verifyLicenseFile(file, { now: Date.now() - DAY });
    expectCode(
      result,
      'CLOCK_TAMPERED',
      /clock .* is behind a time the license server vouched for/,
    );
    // Within the tolerance (5 minutes by default), a clock a little behind is accepted.
    expect((await client().verifyLicenseFile(file, { now: Date.now() - 60_000 })).success).toBe(
      true,
    );
  });

  test('with a cache, the latest signed time is remembered: an older file checked with the clock set back is refused', async () => {
    const cache = memoryStore();
    const issuedLongAgo = new Date(Date.now() - 10 * DAY).toISOString();
    const old = licenseFileOf(key, {
      product_id: 12,
      identifier: 'example.com',
      issued_at: issuedLongAgo,
      expires_at: new Date(Date.now() - 5 * DAY).toISOString(),
    });
    // A verified answer today moves the remembered time to now.
    expect((await client({ cache }).validate('K')).success).toBe(true);
    const remembered = Number(cache.data.get('licensing:latest-time'));
    expect(Math.abs(remembered - Date.now())).toBeLessThan(5000);

    // Set back to within the old file's lease: without the cache it would pass.
    const setBack = Date.now() - 7 * DAY;
    expect((await client().verifyLicenseFile(old, { now: setBack })).success).toBe(true);
    expectCode(
      await client({ cache }).verifyLicenseFile(old, { now: setBack }),
      'CLOCK_TAMPERED',
      /set back/,
    );
    // A new client on the same store (the next start of the software) remembers it too.
    expectCode(
      await client({ cache, now: () => setBack }).verifyLicenseFile(old),
      'CLOCK_TAMPERED',
      /set back/,
    );
  });

  test('a file remembers its issued_at: a later check with the clock set back before it is refused', async () => {
    const cache = memoryStore();
    const issued = new Date(Date.now() - 60_000).toISOString();
    const file = licenseFileOf(key, {
      product_id: 12,
      identifier: 'example.com',
      issued_at: issued,
    });
    expect((await client({ cache }).verifyLicenseFile(file)).success).toBe(true);
    expect(cache.data.get('licensing:latest-time')).toBe(String(Date.parse(issued)));
    const older = licenseFileOf(key, {
      product_id: 12,
      identifier: 'example.com',
      issued_at: new Date(Date.now() - 2 * DAY).toISOString(),
      expires_at: new Date(Date.now() + DAY).toISOString(),
    });
    expectCode(
      await client({ cache }).verifyLicenseFile(older, { now: Date.now() - DAY }),
      'CLOCK_TAMPERED',
      /set back/,
    );
  });

  test('a JSON file can be the cache (jsonFileStore, as the command line uses)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'licensing-state-'));
    try {
      const path = join(dir, 'state.json');
      expect(
        (await client({ cache: jsonFileStore(path) }).verifyLicenseFile(fileBy(key))).success,
      ).toBe(true);
      const saved = JSON.parse(await readFile(path, 'utf8'));
      expect(Number(saved['licensing:latest-time'])).toBeGreaterThan(Date.now() - 60_000);
      expectCode(
        await client({ cache: jsonFileStore(path) }).verifyLicenseFile(fileBy(key), {
          now: Date.now() - DAY,
        }),
        'CLOCK_TAMPERED',
        /set back/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
