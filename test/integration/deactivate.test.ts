import { bootSystem, type TestSystem } from '../support/system.js';

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const PAST = '2020-01-01T00:00:00.000Z';
const detail = (key: string) => system.transport.call('license.getLicense', { license_key: key });

describe('spec 4.3 POST /licenses/deactivate', () => {
  test('removes the activation, frees its slot and answers with the license state', async () => {
    const { key, product, plan } = await system.license({ activation_limit: 1 });
    await system.post('activate', { license_key: key, identifier: 'example.com' });
    const res = await system.post('deactivate', {
      license_key: key,
      identifier: 'https://www.example.com/',
      product_id: product.id,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        status: 'active',
        license_key: key,
        product: product.title,
        plan: plan.name,
        activation_type: 'domain',
        activation_limit: 1,
        activations_used: 0,
        expires_at: null,
        identifier: 'example.com',
        lease_expires_at: null,
        entitlements: [],
        in_grace: false,
        grace_ends_at: null,
        updates_until: null,
      },
    });
    const next = await system.post('activate', { license_key: key, identifier: 'new.com' });
    expect(next.status).toBe(200);
  });

  test('the identifier is matched case-insensitively (device)', async () => {
    const { key } = await system.license({ activation_type: 'device' });
    await system.post('activate', { license_key: key, identifier: 'Laptop-7' });
    const res = await system.post('deactivate', { dlid: key, identifier: ' laptop-7 ' });
    expect(res.status).toBe(200);
    expect(res.body.data.identifier).toBe('Laptop-7');
    expect((await detail(key)).activations).toEqual([]);
  });

  test.each([
    ['expired', { expires_at: PAST }],
    ['suspended', { status: 'suspended' as const }],
    ['revoked', { status: 'revoked' as const }],
  ])('deactivating on a %s license works, so a customer can free a slot', async (_, options) => {
    const { key } = await system.license({ activation_limit: 1 });
    await system.post('activate', { license_key: key, identifier: 'a.com' });
    await system.transport.call('license.updateLicense', { license_key: key, ...options });
    const res = await system.post('deactivate', { license_key: key, identifier: 'a.com' });
    expect(res.status).toBe(200);
    expect(res.body.data.activations_used).toBe(0);
  });

  describe('errors', () => {
    test('INVALID_REQUEST (400) for a missing key or identifier, or over 255 characters', async () => {
      const { key } = await system.license();
      for (const fields of [
        { identifier: 'a.com' },
        { license_key: key },
        { license_key: key, identifier: 'a'.repeat(256) },
        { license_key: key, identifier: 'https://' },
      ]) {
        const res = await system.post('deactivate', fields);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('INVALID_REQUEST');
      }
    });

    test('LICENSE_INVALID (403) for an unknown key', async () => {
      const res = await system.post('deactivate', { license_key: 'nope', identifier: 'a.com' });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('LICENSE_INVALID');
    });

    test('PRODUCT_MISMATCH (403) when the key does not cover product_id; nothing is removed', async () => {
      const { key } = await system.license();
      await system.post('activate', { license_key: key, identifier: 'a.com' });
      const res = await system.post('deactivate', {
        license_key: key,
        identifier: 'a.com',
        product_id: 999999,
      });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('PRODUCT_MISMATCH');
      expect((await detail(key)).activations_used).toBe(1);
    });

    test('PRODUCT_MISMATCH for a product of a bundle inside the bundle (one level only)', async () => {
      const { item, inner, outer } = await system.nestedBundle();
      const { key } = await system.license({ product: outer });
      await system.post('activate', {
        license_key: key,
        identifier: 'a.com',
        product_id: inner.id,
      });
      const nested = await system.post('deactivate', {
        license_key: key,
        identifier: 'a.com',
        product_id: item.id,
      });
      expect(nested.status).toBe(403);
      expect(nested.body.error.code).toBe('PRODUCT_MISMATCH');
      const direct = await system.post('deactivate', {
        license_key: key,
        identifier: 'a.com',
        product_id: inner.id,
      });
      expect(direct.status).toBe(200);
    });

    test('ACTIVATION_NOT_FOUND (404) for an identifier that is not activated', async () => {
      const { key } = await system.license();
      await system.post('activate', { license_key: key, identifier: 'a.com' });
      const res = await system.post('deactivate', { license_key: key, identifier: 'b.com' });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('ACTIVATION_NOT_FOUND');
      expect((await detail(key)).activations_used).toBe(1);
    });

    test('deactivating twice: the second call gets ACTIVATION_NOT_FOUND', async () => {
      const { key } = await system.license();
      await system.post('activate', { license_key: key, identifier: 'a.com' });
      expect(
        (await system.post('deactivate', { license_key: key, identifier: 'a.com' })).status,
      ).toBe(200);
      const second = await system.post('deactivate', { license_key: key, identifier: 'a.com' });
      expect(second.body.error.code).toBe('ACTIVATION_NOT_FOUND');
    });
  });
});
