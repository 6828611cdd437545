import { eventually } from '../support/eventually.js';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const PAST = '2020-01-01T00:00:00.000Z';
const detail = (key: string) => system.transport.call('license.getLicense', { license_key: key });

describe('spec 4.2 POST /licenses/validate', () => {
  test('a usable license: valid true with every field of 4.2', async () => {
    const { key, product, plan } = await system.license({ activation_limit: 4 });
    await system.post('activate', { license_key: key, identifier: 'a.com' });
    const res = await system.post('validate', { license_key: key, product_id: product.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        valid: true,
        status: 'active',
        license_key: key,
        product: product.title,
        plan: plan.name,
        activation_type: 'domain',
        activation_limit: 4,
        activations_used: 1,
        expires_at: null,
        identifier_activated: true,
        lease_expires_at: null,
        entitlements: [],
        entitlements_missing: [],
        code: null,
        in_grace: false,
        grace_ends_at: null,
        updates_until: null,
      },
    });
  });

  test('identifier_activated tells whether the identifier is activated, after normalisation', async () => {
    const { key } = await system.license();
    await system.post('activate', { license_key: key, identifier: 'example.com' });
    const activated = await system.post('validate', {
      license_key: key,
      identifier: 'https://www.EXAMPLE.com/page',
    });
    expect(activated.body.data.identifier_activated).toBe(true);
    const other = await system.post('validate', { license_key: key, identifier: 'other.com' });
    expect(other.status).toBe(200);
    expect(other.body.data.identifier_activated).toBe(false);
    expect(other.body.data.valid).toBe(true);
  });

  test('dlid is accepted in place of license_key', async () => {
    const { key } = await system.license();
    const res = await system.post('validate', { dlid: key });
    expect(res.body.data).toMatchObject({ valid: true, license_key: key });
  });

  describe('rule 1: unknown, inactive or expired keys get HTTP 200 with valid false', () => {
    test('an unknown key reports invalid with null and zero fields', async () => {
      const res = await system.post('validate', {
        license_key: 'unknown-key',
        identifier: 'a.com',
        product_id: 5,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: {
          valid: false,
          status: 'invalid',
          license_key: 'unknown-key',
          product: null,
          plan: null,
          activation_type: null,
          activation_limit: 0,
          activations_used: 0,
          expires_at: null,
          identifier_activated: false,
          lease_expires_at: null,
          entitlements: [],
          entitlements_missing: [],
          code: null,
          in_grace: false,
          grace_ends_at: null,
          updates_until: null,
        },
      });
    });

    test('an unknown key without identifier still reports identifier_activated false', async () => {
      const res = await system.post('validate', { license_key: 'unknown-key-2' });
      expect(res.body.data.identifier_activated).toBe(false);
    });

    test.each(['suspended', 'revoked', 'cancelled', 'expired'] as const)(
      'a %s license reports its status with valid false',
      async (status) => {
        const { key } = await system.license({ status });
        const res = await system.post('validate', { license_key: key });
        expect(res.status).toBe(200);
        expect(res.body.data).toMatchObject({ valid: false, status });
      },
    );

    test('an active license past its expiry date reports expired before the task runs', async () => {
      const { key } = await system.license({ expires_at: PAST });
      const res = await system.post('validate', { license_key: key });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ valid: false, status: 'expired', expires_at: PAST });
      expect((await detail(key)).status).toBe('expired');
    });
  });

  test('rule 2: validate never returns LICENSE_INVALID or LICENSE_EXPIRED', async () => {
    const { key: revoked } = await system.license({ status: 'revoked', expires_at: PAST });
    for (const key of [revoked, 'nope']) {
      const res = await system.post('validate', { license_key: key, identifier: 'a.com' });
      expect(res.status).toBe(200);
      expect(res.body.error).toBeUndefined();
    }
  });

  describe('rule 3: side effects', () => {
    test('a check without identifier updates last_check_at, last_check_ip and check_count', async () => {
      const { key } = await system.license();
      const before = Date.now();
      await system.post('validate', { license_key: key });
      await system.post('validate', { license_key: key });
      const license = await detail(key);
      expect(license.check_count).toBe(2);
      expect(license.last_check_ip).toBe('127.0.0.1');
      expect(Date.parse(license.last_check_at!)).toBeGreaterThanOrEqual(before - 1000);
    });

    test('a check with an activated identifier counts', async () => {
      const { key } = await system.license();
      await system.post('activate', { license_key: key, identifier: 'a.com' });
      const before = Date.now();
      await system.post('validate', { license_key: key, identifier: 'https://www.A.com/' });
      const license = await detail(key);
      expect(license.check_count).toBe(1);
      expect(license.last_check_ip).toBe('127.0.0.1');
      expect(Date.parse(license.last_check_at!)).toBeGreaterThanOrEqual(before - 1000);
    });

    test('an identifier sent empty is sent: not activated, and the fields are left alone', async () => {
      const { key } = await system.license();
      await system.post('activate', { license_key: key, identifier: 'a.com' });
      const res = await system.post('validate', { license_key: key, identifier: '' });
      expect(res.status).toBe(200);
      expect(res.body.data.identifier_activated).toBe(false);
      const license = await detail(key);
      expect(license.check_count).toBe(0);
      expect(license.last_check_at).toBeNull();
    });

    test('a check with an identifier that is not activated leaves the fields alone', async () => {
      const { key } = await system.license();
      await system.post('validate', { license_key: key, identifier: 'not-activated.com' });
      const license = await detail(key);
      expect(license.check_count).toBe(0);
      expect(license.last_check_at).toBeNull();
      expect(license.last_check_ip).toBeNull();
    });

    test('a refused check (PRODUCT_MISMATCH) changes nothing', async () => {
      const { key } = await system.license();
      await system.post('validate', { license_key: key, product_id: 999999 });
      expect((await detail(key)).check_count).toBe(0);
    });

    test('an expired license is still checked (its fields are updated)', async () => {
      const { key } = await system.license({ expires_at: PAST });
      await system.post('validate', { license_key: key });
      expect((await detail(key)).check_count).toBe(1);
    });
  });

  describe('rule 4: errors', () => {
    test('INVALID_REQUEST (400) for a missing license_key', async () => {
      const res = await system.post('validate', { identifier: 'a.com' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    });

    test('INVALID_REQUEST for an identifier over 255 characters', async () => {
      const { key } = await system.license();
      const res = await system.post('validate', { license_key: key, identifier: 'a'.repeat(256) });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    });

    test('PRODUCT_MISMATCH (403) for a key that does not cover product_id, also when suspended', async () => {
      for (const status of ['active', 'suspended'] as const) {
        const { key } = await system.license({ status });
        const res = await system.post('validate', { license_key: key, product_id: 999999 });
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('PRODUCT_MISMATCH');
      }
    });

    test('a bundle key validates for a product of its bundle', async () => {
      const item = await system.transport.call('update-catalog.createProduct', { title: 'Item' });
      const bundle = await system.transport.call('update-catalog.createProduct', {
        title: 'Bundle',
        bundle_items: [item.id],
      });
      const { key } = await system.license({ product: bundle });
      const res = await system.post('validate', { license_key: key, product_id: item.id });
      expect(res.body.data).toMatchObject({ valid: true, product: 'Bundle' });
    });

    test('only one level of bundle is resolved: a bundle inside a bundle passes nothing through', async () => {
      const { item, inner, outer } = await system.nestedBundle();
      const { key } = await system.license({ product: outer });
      const direct = await system.post('validate', { license_key: key, product_id: inner.id });
      expect(direct.body.data.valid).toBe(true);
      const nested = await system.post('validate', { license_key: key, product_id: item.id });
      expect(nested.status).toBe(403);
      expect(nested.body.error.code).toBe('PRODUCT_MISMATCH');
    });
  });

  test('a product title change reaches validate at once (the catalog announces it)', async () => {
    const { key, product } = await system.license();
    await system.post('validate', { license_key: key });
    await system.transport.call('update-catalog.updateProduct', {
      id: product.id,
      title: 'Renamed',
    });
    // The cached title would live 30 s (PRODUCT_CACHE_TTL_MS); the event must beat that.
    await eventually(
      'validate names the product by its new title',
      async () =>
        (await system.post('validate', { license_key: key })).body.data.product === 'Renamed',
      10_000,
    );
  });
});

describe('spec 2.2 last_check_ip behind a trusted proxy (TRUST_PROXY)', () => {
  let proxied: TestSystem;
  beforeAll(async () => {
    // The test client connects from loopback: a proxy on this host.
    proxied = await bootSystem({ TRUST_PROXY: 'loopback' });
  });
  afterAll(() => proxied?.stop());

  const validateFrom = (key: string, forwardedFor: string) =>
    proxied
      .api()
      .post(`${API_BASE}/licenses/validate`)
      .set('X-Forwarded-For', forwardedFor)
      .type('form')
      .send(`license_key=${key}`);

  test('the forwarded client address is recorded', async () => {
    const { key } = await proxied.license();
    expect((await validateFrom(key, '203.0.113.9')).status).toBe(200);
    const license = await proxied.transport.call('license.getLicense', { license_key: key });
    expect(license.last_check_ip).toBe('203.0.113.9');
  });

  test.each(['<script>', 'x'.repeat(70), '999.1.1.1'])(
    'a forwarded value that is no IP address (%j) is not recorded: the connection address is',
    async (forwardedFor) => {
      const { key } = await proxied.license();
      const res = await validateFrom(key, forwardedFor);
      expect(res.status).toBe(200);
      const license = await proxied.transport.call('license.getLicense', { license_key: key });
      expect(license.last_check_ip).toBe('127.0.0.1');
    },
  );
});
