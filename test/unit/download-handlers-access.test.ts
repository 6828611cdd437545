import type { DownloadAccess } from '../../libs/contracts/index.js';
import { type FakeLicense } from '../support/fake-services.js';
import { STORE_URL, STORED_AT, downloads } from '../support/download-handler-harness.js';

/**
 * The download handlers on an in-memory download log, with the update catalog's handlers on
 * in-memory stores, a fake license service and a clock that stands still: the rules of spec 4.5
 * at the handler level. The same rules through the whole system, bytes and all:
 * test/integration/downloads.test.ts.
 */

describe('spec 4.5: License key + activated identifier downloads', () => {
  const licenses = [{ key: 'KEY', product_id: 1, plan_id: 7, activated: ['example.com'] }];

  test('valid key, no identifier: refused with ACTIVATION_REQUIRED', async () => {
    const { product, release, outcome } = downloads(licenses);
    const p = await product('activated_identifier');
    await release(p.id);
    expect(await outcome({ product_id: p.id, license_key: 'KEY' })).toBe(
      'ACTIVATION_REQUIRED (403)',
    );
  });

  test('valid key, identifier not activated on the license: refused with ACTIVATION_NOT_FOUND', async () => {
    const { product, release, outcome } = downloads(licenses);
    const p = await product('activated_identifier');
    await release(p.id);
    expect(
      await outcome({ product_id: p.id, license_key: 'KEY', identifier: 'elsewhere.example' }),
    ).toBe('ACTIVATION_NOT_FOUND (404)');
  });

  test('valid key, activated identifier: file served, on a presigned link to the object that names the file', async () => {
    const { product, release, authorize, log } = downloads(licenses);
    const p = await product('activated_identifier');
    const { file } = await release(p.id);
    const served = await authorize({
      product_id: p.id,
      license_key: 'KEY',
      identifier: 'example.com',
    });
    expect(served).toEqual({
      url: `${STORE_URL}/${file.object_key}?disposition=attachment%3B+filename%3D%22plugin.zip%22&ttl=60`,
      last_modified: STORED_AT.toISOString(),
      filename: 'plugin.zip',
      size: 4096,
      sha256: 'c'.repeat(64),
      content_type: 'application/zip',
      version: '2.1.0',
      log_id: expect.stringMatching(/^[0-9a-f]{24}$/),
    });
    expect((await log()).entries).toEqual([
      expect.objectContaining({ id: served.log_id, outcome: 'served', file_id: file.id }),
    ]);
  });

  test('redirect delivery: the URL is signed for the address clients reach, and for their method', async () => {
    const { product, release, authorize } = downloads(licenses);
    const p = await product('activated_identifier');
    await release(p.id);
    const request = { product_id: p.id, license_key: 'KEY', identifier: 'example.com' };
    const relayed = await authorize({ ...request, method: 'HEAD' });
    expect(new URL(relayed.url).searchParams.get('public')).toBeNull();
    for (const method of ['GET', 'HEAD'] as const) {
      const redirected = await authorize({ ...request, delivery: 'redirect', method });
      expect(new URL(redirected.url).searchParams.get('public')).toBe(method);
    }
  });

  test('a store that fails the lookup: the served entry becomes INTERNAL_ERROR', async () => {
    const { product, release, authorize, broken, log } = downloads(licenses);
    const p = await product('activated_identifier');
    const { file } = await release(p.id);
    broken.add(file.object_key);
    await expect(
      authorize({ product_id: p.id, license_key: 'KEY', identifier: 'example.com' }),
    ).rejects.toThrow('The store is down.');
    expect((await log()).entries).toEqual([
      expect.objectContaining({ outcome: 'refused', reason: 'INTERNAL_ERROR', file_id: file.id }),
    ]);
  });

  test('an object missing from the store: NOT_FOUND, and the served entry becomes that refusal', async () => {
    const { product, release, outcome, missing, log } = downloads(licenses);
    const p = await product('activated_identifier');
    const { file } = await release(p.id);
    missing.add(file.object_key);
    expect(await outcome({ product_id: p.id, license_key: 'KEY', identifier: 'example.com' })).toBe(
      'NOT_FOUND (404)',
    );
    expect((await log()).entries).toEqual([
      expect.objectContaining({ outcome: 'refused', reason: 'NOT_FOUND', file_id: file.id }),
    ]);
  });
});

describe('spec 4.5: License key downloads', () => {
  const licenses: FakeLicense[] = [
    { key: 'KEY', product_id: 1, plan_id: 7, activated: ['example.com'] },
    { key: 'OTHER', product_id: 2, plan_id: 7 },
    { key: 'SUSPENDED', product_id: 1, plan_id: 7, status: 'suspended' },
  ];

  test('identifier optional: a valid key alone gets the file', async () => {
    const { product, release, outcome } = downloads(licenses);
    const p = await product('license_key');
    await release(p.id);
    expect(await outcome({ product_id: p.id, license_key: 'KEY' })).toBe('served');
  });

  test('one that is sent must be activated, otherwise ACTIVATION_NOT_FOUND', async () => {
    const { product, release, outcome } = downloads(licenses);
    const p = await product('license_key');
    await release(p.id);
    expect(await outcome({ product_id: p.id, license_key: 'KEY', identifier: 'example.com' })).toBe(
      'served',
    );
    expect(
      await outcome({ product_id: p.id, license_key: 'KEY', identifier: 'elsewhere.example' }),
    ).toBe('ACTIVATION_NOT_FOUND (404)');
  });

  test('no key, an unknown key or a license that is not active: LICENSE_INVALID', async () => {
    const { product, release, outcome } = downloads(licenses);
    const p = await product('license_key');
    await release(p.id);
    expect(await outcome({ product_id: p.id })).toBe('LICENSE_INVALID (403)');
    expect(await outcome({ product_id: p.id, license_key: 'UNKNOWN' })).toBe(
      'LICENSE_INVALID (403)',
    );
    expect(await outcome({ product_id: p.id, license_key: 'SUSPENDED' })).toBe(
      'LICENSE_INVALID (403)',
    );
  });

  test('a key for another product: PRODUCT_MISMATCH', async () => {
    const { product, release, outcome } = downloads(licenses);
    const p = await product('license_key');
    await product('license_key');
    await release(p.id);
    expect(await outcome({ product_id: p.id, license_key: 'OTHER' })).toBe(
      'PRODUCT_MISMATCH (403)',
    );
  });
});

describe('spec 4.5: an expired license is refused with LICENSE_EXPIRED (403)', () => {
  const expired: FakeLicense = {
    key: 'EXPIRED',
    product_id: 1,
    plan_id: 7,
    status: 'expired',
    expires_at: '2026-01-01T00:00:00.000Z',
    activated: ['example.com'],
  };

  test.each<DownloadAccess>(['license_key', 'activated_identifier'])(
    '%s: before any identifier rule',
    async (access) => {
      const { product, release, outcome } = downloads([expired]);
      const p = await product(access);
      await release(p.id);
      expect(await outcome({ product_id: p.id, license_key: 'EXPIRED' })).toBe(
        'LICENSE_EXPIRED (403)',
      );
      expect(
        await outcome({ product_id: p.id, license_key: 'EXPIRED', identifier: 'example.com' }),
      ).toBe('LICENSE_EXPIRED (403)');
    },
  );

  test('the update check still gives the expired key the version (spec 4.4 rule 6)', async () => {
    const { transport, product, release, outcome } = downloads([expired]);
    const p = await product('license_key');
    await release(p.id);
    const update = await transport.call('update-catalog.checkUpdate', {
      product_id: p.id,
      license_key: 'EXPIRED',
      downloads_url: 'https://shop.example/downloads',
    });
    expect(update).toMatchObject({
      update_available: true,
      version: '2.1.0',
      license_status: 'expired',
    });
    expect(await outcome({ product_id: p.id, license_key: 'EXPIRED' })).toBe(
      'LICENSE_EXPIRED (403)',
    );
  });
});

describe('spec 4.5: a key for another product in a bundle works for each product of the bundle', () => {
  test('each product of the bundle is served, with its all-plans file', async () => {
    const { product, release, authorize, outcome } = downloads([
      { key: 'BUNDLE', product_id: 3, bundle_items: [1, 2], plan_id: 7 },
    ]);
    const first = await product('license_key');
    const second = await product('activated_identifier');
    await product('license_key', [first.id, second.id]);
    await release(first.id, [7]);
    await release(second.id);
    expect(await authorize({ product_id: first.id, license_key: 'BUNDLE' })).toMatchObject({
      filename: 'plugin.zip',
    });
    expect(await outcome({ product_id: second.id, license_key: 'BUNDLE' })).toBe(
      'ACTIVATION_REQUIRED (403)',
    );
  });
});

describe('spec 2.6 and 2.7: Account only and public products', () => {
  test('Account only refuses every download with DOWNLOAD_NOT_AVAILABLE, without asking about the key', async () => {
    const { transport, product, release, outcome } = downloads([
      { key: 'KEY', product_id: 1, plan_id: 7, activated: ['example.com'] },
    ]);
    const p = await product('account');
    await release(p.id);
    expect(await outcome({ product_id: p.id })).toBe('DOWNLOAD_NOT_AVAILABLE (403)');
    expect(await outcome({ product_id: p.id, license_key: 'KEY', identifier: 'example.com' })).toBe(
      'DOWNLOAD_NOT_AVAILABLE (403)',
    );
    expect(transport.requestsOf('license.coverage')).toEqual([]);
  });

  test('a public product is served without a key; any key is as good as none', async () => {
    const { product, release, outcome } = downloads();
    const p = await product('public');
    await release(p.id);
    expect(await outcome({ product_id: p.id })).toBe('served');
    expect(await outcome({ product_id: p.id, license_key: 'UNKNOWN' })).toBe('served');
  });
});

describe('spec 4.4 rules 4 and 5 on downloads: which file', () => {
  test('a key of the plan gets the plan-restricted file; no key the all-plans file', async () => {
    const { product, release, authorize } = downloads([{ key: 'KEY', product_id: 1, plan_id: 7 }]);
    const p = await product('public');
    await release(p.id, [7, 8]);
    expect(await authorize({ product_id: p.id, license_key: 'KEY' })).toMatchObject({
      filename: 'plugin-plan-7.zip',
    });
    expect(await authorize({ product_id: p.id })).toMatchObject({ filename: 'plugin.zip' });
  });
});

describe('nothing to download: NOT_FOUND (404)', () => {
  test('a product that does not exist, or one without a published file for the caller', async () => {
    const { transport, product, release, outcome } = downloads();
    const p = await product('public');
    expect(await outcome({ product_id: p.id })).toBe('NOT_FOUND (404)');
    const { file } = await release(p.id);
    await transport.call('update-catalog.updateFile', { id: file.id, include_in_updates: false });
    expect(await outcome({ product_id: p.id })).toBe('NOT_FOUND (404)');
    expect(await outcome({ product_id: 987654 })).toBe('NOT_FOUND (404)');
  });
});
