import { createPublicKey, verify } from 'node:crypto';
import { readLicenseFile, verificationKeys, verifyEd25519 } from '../../libs/signatures/index.js';
import { signatureProblem } from '../support/signed-answers.js';
import { ADMIN_TOKEN, API_BASE, bootSystem, type TestSystem } from '../support/system.js';

/**
 * Offline license files (docs/api-decisions.md, "License files"): POST {api_base}/licenses/checkout
 * through real HTTP and the real transport. A file is refused as activate refuses, then when the
 * identifier is not activated; it holds the license as validate reports it, for one product and a
 * lease, signed with a key the gateway publishes; the checkout is recorded on the activation.
 */

const MAX_TTL = 86_400;
let system: TestSystem;
let keySet: { keys: Array<{ kid: string; x: string }> };
beforeAll(async () => {
  system = await bootSystem({ LICENSE_FILE_MAX_TTL_SECONDS: String(MAX_TTL) });
  keySet = (await system.api().get(`${API_BASE}/keys`)).body;
});
afterAll(() => system?.stop());

const CHECKOUT = `${API_BASE}/licenses/checkout`;
const utf8 = (text: string) => new TextEncoder().encode(text);
const seconds = (iso: string) => Date.parse(iso) / 1000;

/** A checkout, and the check that its answer is signed as every answer of the route is. */
async function checkout(fields: Record<string, string | number | undefined>) {
  const res = await system.post('checkout', fields);
  const answer = { status: res.status, headers: res.headers, text: res.text };
  expect(await signatureProblem(answer, { method: 'POST', target: CHECKOUT }, keySet)).toBeNull();
  return res;
}

/** A license with `identifier` activated on it. */
async function activated(identifier: string, options: Parameters<TestSystem['license']>[0] = {}) {
  const issued = await system.license(options);
  const res = await system.post('activate', { license_key: issued.key, identifier });
  expect(res.status).toBe(200);
  return issued;
}

const detail = (key: string) => system.transport.call('license.getLicense', { license_key: key });

describe('a license file', () => {
  test('is a JWT signed by a published key, holding the license as validate reports it', async () => {
    const { key, product } = await activated('shop.example', {
      expires_at: '2099-01-01T00:00:00.000Z',
    });
    const res = await checkout({
      license_key: key,
      identifier: 'shop.example',
      product_id: product.id,
      ttl: 3600,
    });
    expect(res.status).toBe(200);
    const { license_file, issued_at, expires_at } = res.body.data;
    expect(seconds(expires_at) - seconds(issued_at)).toBe(3600);

    const file = readLicenseFile(license_file);
    if (file === null) throw new Error('not a license file');
    expect(file.header).toEqual({
      alg: 'EdDSA',
      typ: 'licensing-file+jwt',
      kid: keySet.keys[0]!.kid,
    });
    const key_ = (await verificationKeys(keySet)).get(file.header.kid);
    expect(await verifyEd25519(key_!, utf8(file.signingInput), file.signature)).toBe(true);

    const validated = await system.post('validate', { license_key: key, product_id: product.id });
    const {
      identifier_activated: _,
      lease_expires_at: _lease,
      entitlements_missing: _missing,
      code: _code,
      ...reported
    } = validated.body.data;
    expect(file.payload).toEqual({
      ver: 1,
      product_id: product.id,
      identifier: 'shop.example',
      license: reported,
      issued_at,
      expires_at,
      iat: seconds(issued_at),
      exp: seconds(expires_at),
    });
  });

  test('verifies with Node crypto alone, and a changed payload does not', async () => {
    const { key, product } = await activated('node.example');
    const res = await checkout({ dlid: key, identifier: 'node.example', product_id: product.id });
    const [header, payload, signature] = (res.body.data.license_file as string).split('.');
    const published = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: keySet.keys[0]!.x },
      format: 'jwk',
    });
    const signed = (body: string) =>
      verify(
        null,
        Buffer.from(`${header}.${body}`),
        published,
        Buffer.from(signature!, 'base64url'),
      );
    expect(signed(payload!)).toBe(true);
    const forged = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
    forged.exp += 86_400;
    expect(signed(Buffer.from(JSON.stringify(forged)).toString('base64url'))).toBe(false);
  });

  test('names the identifier as stored, normalised for the activation type (spec 2.4); dlid is the key', async () => {
    const { key, product } = await activated('MacBook-Pro', { activation_type: 'device' });
    const res = await checkout({ dlid: key, identifier: ' macbook-pro ', product_id: product.id });
    expect(res.status).toBe(200);
    expect(readLicenseFile(res.body.data.license_file)?.payload.identifier).toBe('MacBook-Pro');
    const site = await activated('https://www.shop.example/cart');
    const forSite = await checkout({
      license_key: site.key,
      identifier: 'SHOP.example',
      product_id: site.product.id,
    });
    expect(readLicenseFile(forSite.body.data.license_file)?.payload.identifier).toBe(
      'shop.example',
    );
  });

  test('a bundle key gets a file for each product of the bundle', async () => {
    const item = await system.transport.call('update-catalog.createProduct', { title: 'Item' });
    const bundle = await system.transport.call('update-catalog.createProduct', {
      title: 'Bundle',
      bundle_items: [item.id],
    });
    const { key } = await activated('bundle.example', { product: bundle });
    const res = await checkout({
      license_key: key,
      identifier: 'bundle.example',
      product_id: item.id,
    });
    expect(res.status).toBe(200);
    expect(readLicenseFile(res.body.data.license_file)?.payload.product_id).toBe(item.id);
  });
});

describe('the lease', () => {
  test('is the ttl asked, or LICENSE_FILE_MAX_TTL_SECONDS when none is asked', async () => {
    const { key, product } = await activated('lease.example');
    const fields = { license_key: key, identifier: 'lease.example', product_id: product.id };
    const asked = (await checkout({ ...fields, ttl: 600 })).body.data;
    expect(seconds(asked.expires_at) - seconds(asked.issued_at)).toBe(600);
    const longest = (await checkout({ ...fields, ttl: MAX_TTL })).body.data;
    expect(seconds(longest.expires_at) - seconds(longest.issued_at)).toBe(MAX_TTL);
    const unasked = (await checkout(fields)).body.data;
    expect(seconds(unasked.expires_at) - seconds(unasked.issued_at)).toBe(MAX_TTL);
    // Whole seconds, as iat and exp are.
    expect(unasked.issued_at).toMatch(/\.000Z$/);
  });

  test("ends at the license's own expiry when that comes first", async () => {
    const expiry = new Date(Date.now() + 2 * 3600_000);
    expiry.setUTCMilliseconds(0);
    const { key, product } = await activated('expiring.example', {
      expires_at: expiry.toISOString(),
    });
    const res = await checkout({
      license_key: key,
      identifier: 'expiring.example',
      product_id: product.id,
      ttl: MAX_TTL,
    });
    expect(res.body.data.expires_at).toBe(expiry.toISOString());
    expect(readLicenseFile(res.body.data.license_file)?.payload.exp).toBe(
      seconds(expiry.toISOString()),
    );
  });
});

describe('the checkout is recorded on the activation', () => {
  test('last_checkout_at is the issue time of the last file; other activations keep theirs', async () => {
    const { key, product } = await activated('first.example');
    await system.post('activate', { license_key: key, identifier: 'second.example' });
    expect((await detail(key)).activations.map((a) => a.last_checkout_at)).toEqual([null, null]);
    const res = await checkout({
      license_key: key,
      identifier: 'second.example',
      product_id: product.id,
    });
    const shown = await system
      .admin()
      .get(`/admin/v1/licenses/${key}`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    expect(
      shown.body.data.activations.map(
        (a: { identifier: string; last_checkout_at: string | null }) => [
          a.identifier,
          a.last_checkout_at,
        ],
      ),
    ).toEqual([
      ['first.example', null],
      ['second.example', res.body.data.issued_at],
    ]);
  });
});

describe('refusals, in the order of spec 4.1, then ACTIVATION_NOT_FOUND; each changes nothing', () => {
  test('400 INVALID_REQUEST: a missing field, a ttl that is not a positive integer or is over the longest', async () => {
    const { key, product } = await activated('bad.example');
    const fields = { license_key: key, identifier: 'bad.example', product_id: product.id };
    const cases: Array<[Record<string, string | number | undefined>, RegExp]> = [
      [{ ...fields, product_id: undefined }, /^product_id: is required/],
      [{ ...fields, identifier: undefined }, /^identifier: is required/],
      [{ ...fields, license_key: undefined }, /^license_key: is required/],
      [{ ...fields, ttl: 0 }, /^ttl: must be a positive integer/],
      [{ ...fields, ttl: '1.5' }, /^ttl: must be a positive integer/],
      [{ ...fields, ttl: 'soon' }, /^ttl: must be a positive integer/],
      [{ ...fields, ttl: MAX_TTL + 1 }, /^ttl: must be at most 86400 seconds/],
      [{ ...fields, identifier: 'https://' }, /./],
      // Order 1 comes first: a bad ttl on an unknown key is still INVALID_REQUEST.
      [{ ...fields, license_key: 'no-such-key', ttl: MAX_TTL + 1 }, /^ttl: /],
    ];
    for (const [sent, message] of cases) {
      const res = await checkout(sent);
      expect([sent, res.status, res.body.error?.code]).toEqual([sent, 400, 'INVALID_REQUEST']);
      expect(res.body.error.message).toMatch(message);
    }
    expect((await detail(key)).activations[0]?.last_checkout_at).toBeNull();
  });

  test('403 LICENSE_INVALID: an unknown key, or a license not active, before PRODUCT_MISMATCH', async () => {
    const unknown = await checkout({
      license_key: 'no-such-key',
      identifier: 'a.example',
      product_id: 1,
    });
    expect([unknown.status, unknown.body.error.code]).toEqual([403, 'LICENSE_INVALID']);
    const { key, product } = await activated('suspended.example');
    await system.transport.call('license.updateLicense', { license_key: key, status: 'suspended' });
    const res = await checkout({
      license_key: key,
      identifier: 'suspended.example',
      product_id: product.id + 1000,
    });
    expect([res.status, res.body.error.code]).toEqual([403, 'LICENSE_INVALID']);
  });

  test('403 PRODUCT_MISMATCH before LICENSE_EXPIRED; 403 LICENSE_EXPIRED before ACTIVATION_NOT_FOUND', async () => {
    const { key, product } = await activated('expired.example');
    await system.transport.call('license.updateLicense', {
      license_key: key,
      expires_at: '2020-01-01T00:00:00.000Z',
    });
    const other = await checkout({
      license_key: key,
      identifier: 'expired.example',
      product_id: product.id + 1000,
    });
    expect([other.status, other.body.error.code]).toEqual([403, 'PRODUCT_MISMATCH']);
    const expired = await checkout({
      license_key: key,
      identifier: 'never.example',
      product_id: product.id,
    });
    expect([expired.status, expired.body.error.code]).toEqual([403, 'LICENSE_EXPIRED']);
    // A file is not an activation attempt (spec 2.5).
    expect((await detail(key)).rejected_attempts).toEqual([]);
  });

  test('404 ACTIVATION_NOT_FOUND: the identifier, normalised, is not activated', async () => {
    const { key, product } = await activated('mine.example');
    const res = await checkout({
      license_key: key,
      identifier: 'yours.example',
      product_id: product.id,
    });
    expect([res.status, res.body.error.code]).toEqual([404, 'ACTIVATION_NOT_FOUND']);
    expect((await detail(key)).activations[0]?.last_checkout_at).toBeNull();
  });
});

test('checkout shares the per-IP limit of the license operations', async () => {
  const limited = await bootSystem({ RATE_LIMIT_PER_IP_PER_MINUTE: '2' });
  try {
    const { key, product } = await limited.license();
    const fields = { license_key: key, identifier: 'a.example', product_id: product.id };
    expect((await limited.post('validate', { license_key: key })).status).toBe(200);
    expect((await limited.post('checkout', fields)).status).toBe(404);
    const res = await limited.post('checkout', fields);
    expect([res.status, res.body.error.code]).toEqual([429, 'RATE_LIMITED']);
  } finally {
    await limited.stop();
  }
});
