import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem({ PUBLIC_URL: 'https://updates.example.test' });
});
afterAll(() => system?.stop());

const PAST = '2020-01-01T00:00:00.000Z';
const DOWNLOADS = `https://updates.example.test${API_BASE}/downloads`;

interface FileSpec {
  plan_id?: number | null;
  include_in_updates?: boolean;
  size?: number;
}

/** A version with files, recorded in the catalog (the update check reads metadata only). */
async function release(
  productId: number,
  version: string,
  files: FileSpec[],
  options: { published?: boolean; release_date?: string | null; release_notes?: string } = {},
) {
  const created = await system.transport.call('update-catalog.createVersion', {
    product_id: productId,
    version,
    published: options.published ?? true,
    release_date: options.release_date ?? null,
    release_notes: options.release_notes ?? null,
  });
  for (const [i, spec] of files.entries()) {
    await system.transport.call('update-catalog.addFile', {
      version_id: created.id,
      filename: `${version}-${i}.zip`,
      plan_id: spec.plan_id ?? null,
      include_in_updates: spec.include_in_updates ?? true,
      size: spec.size ?? 1000,
      sha256: 'a'.repeat(64),
      content_type: 'application/zip',
      object_key: `packages/test/${version}-${i}.zip`,
    });
  }
  return created;
}

const check = (productId: number, query = '') =>
  system.api().get(`${API_BASE}/updates/${productId}${query ? `?${query}` : ''}`);

describe('spec 4.4 GET /updates/{product_id}', () => {
  test('response 1: a version is available, with every field of 2.6', async () => {
    const { product } = await system.license();
    await release(product.id, '1.4.2', [{ size: 123456 }], {
      release_date: '2026-02-03',
      release_notes: 'Fixes.',
    });
    const res = await check(product.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        update_available: true,
        name: product.title,
        version: '1.4.2',
        download_url: `${DOWNLOADS}/${product.id}`,
        download_requires: 'license_key',
        release_notes: 'Fixes.',
        date: '2026-02-03',
        file_size: 123456,
        requires_license: true,
      },
    });
  });

  test('date falls back to the upload date (Y-m-d) when no release date is set', async () => {
    const { product } = await system.license();
    await release(product.id, '1.0', [{}]);
    const res = await check(product.id);
    expect(res.body.data.date).toBe(new Date().toISOString().slice(0, 10));
    expect(res.body.data.release_notes).toBeNull();
  });

  test('response 2: no version gives update_available false, requires_license and download_requires', async () => {
    const { product } = await system.license();
    const res = await check(product.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: { update_available: false, requires_license: true, download_requires: 'license_key' },
    });
  });

  test('response 3: a product that does not exist gets the no-version shape with download_requires null', async () => {
    const res = await check(987654321);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ update_available: false, download_requires: null });
    expect(Object.keys(res.body.data).sort()).toEqual([
      'download_requires',
      'requires_license',
      'update_available',
    ]);
  });

  test('rule 1: only published versions count', async () => {
    const { product } = await system.license();
    await release(product.id, '1.0', [{}]);
    await release(product.id, '2.0-draft', [{}], { published: false });
    expect((await check(product.id)).body.data.version).toBe('1.0');
  });

  test('publishing a version later makes it the one offered', async () => {
    const { product } = await system.license();
    await release(product.id, '1.0', [{}]);
    const draft = await release(product.id, '2.0', [{}], { published: false });
    await system.transport.call('update-catalog.updateVersion', { id: draft.id, published: true });
    expect((await check(product.id)).body.data.version).toBe('2.0');
  });

  test('rule 2: a version whose files are all unticked is never offered', async () => {
    const { product } = await system.license();
    await release(product.id, '1.0', [{ size: 10 }]);
    await release(product.id, '1.1', [
      { include_in_updates: false },
      { include_in_updates: false },
    ]);
    const res = await check(product.id);
    expect(res.body.data).toMatchObject({ version: '1.0', file_size: 10 });
  });

  test('rule 2: unticking a file takes it out of the update check', async () => {
    const { product } = await system.license();
    const v = await release(product.id, '3.0', [{}]);
    const [file] = (await system.transport.call('update-catalog.getVersion', { id: v.id })).files;
    await system.transport.call('update-catalog.updateFile', {
      id: file!.id,
      include_in_updates: false,
    });
    expect((await check(product.id)).body.data.update_available).toBe(false);
  });

  test('rule 3: the most recently uploaded version wins, whatever its release date', async () => {
    const { product } = await system.license();
    await release(product.id, '2.0', [{}], { release_date: '2026-05-01' });
    await release(product.id, '1.9.1', [{}], { release_date: '2025-01-01' });
    const res = await check(product.id);
    expect(res.body.data).toMatchObject({ version: '1.9.1', date: '2025-01-01' });
  });

  describe('rule 4: plans', () => {
    test('without a key only all-plans files count; with a key the plan-specific file is preferred', async () => {
      const { product, plan, key } = await system.license();
      await release(product.id, '5.0', [{ size: 100 }, { plan_id: plan.id, size: 200 }]);
      expect((await check(product.id)).body.data.file_size).toBe(100);
      const withKey = await check(product.id, `license_key=${key}`);
      expect(withKey.body.data).toMatchObject({ version: '5.0', file_size: 200 });
    });

    test('a version with only a plan-restricted file is offered to that plan only', async () => {
      const { product, plan, key } = await system.license();
      await release(product.id, '1.0', [{ size: 1 }]);
      await release(product.id, '1.1-pro', [{ plan_id: plan.id, size: 2 }]);
      expect((await check(product.id)).body.data.version).toBe('1.0');
      expect((await check(product.id, `license_key=${key}`)).body.data.version).toBe('1.1-pro');
    });
  });

  test('rule 5: a bundle key sees the all-plans files of each product in the bundle', async () => {
    const item = await system.transport.call('update-catalog.createProduct', { title: 'Add-on' });
    const bundle = await system.transport.call('update-catalog.createProduct', {
      title: 'Bundle',
      bundle_items: [item.id],
    });
    const { key, plan } = await system.license({ product: bundle });
    await release(item.id, '7.0', [{ size: 70 }, { plan_id: plan.id, size: 71 }]);
    const res = await check(item.id, `license_key=${key}`);
    expect(res.body.data).toMatchObject({
      name: 'Add-on',
      version: '7.0',
      file_size: 70,
      license_status: 'active',
    });
  });

  describe('rule 6: the version is reported whatever the license state, with the state added', () => {
    test('an expired key gets the metadata and license_status expired', async () => {
      const { product, key } = await system.license({ expires_at: PAST });
      await release(product.id, '9.0', [{}]);
      const res = await check(product.id, `license_key=${key}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        update_available: true,
        version: '9.0',
        license_status: 'expired',
        license_expires_at: PAST,
        auto_renew: false,
        next_payment_at: null,
      });
    });

    test.each(['suspended', 'revoked', 'cancelled'] as const)(
      'a %s key still gets the version',
      async (status) => {
        const { product, key } = await system.license({ status });
        await release(product.id, '1.0', [{}]);
        const res = await check(product.id, `dlid=${key}`);
        expect(res.body.data).toMatchObject({ version: '1.0', license_status: status });
      },
    );

    test('renewal data is reported for a covering key', async () => {
      const { product, plan } = await system.license();
      const license = await system.transport.call('license.createLicense', {
        product_id: product.id,
        plan_id: plan.id,
        expires_at: '2031-01-01T00:00:00.000Z',
        auto_renew: true,
        next_payment_at: '2030-12-25T00:00:00.000Z',
      });
      await release(product.id, '1.0', [{}]);
      const res = await check(product.id, `license_key=${license.license_key}`);
      expect(res.body.data).toMatchObject({
        license_status: 'active',
        license_expires_at: '2031-01-01T00:00:00.000Z',
        auto_renew: true,
        next_payment_at: '2030-12-25T00:00:00.000Z',
      });
    });

    test('a key that does not cover the product, or an unknown key, adds nothing', async () => {
      const { key } = await system.license();
      const { product } = await system.license();
      await release(product.id, '1.0', [{}]);
      for (const query of [`license_key=${key}`, 'license_key=unknown-key']) {
        const res = await check(product.id, query);
        expect(res.body.data.version).toBe('1.0');
        expect(res.body.data.license_status).toBeUndefined();
        expect(res.body.data.auto_renew).toBeUndefined();
      }
    });
  });

  describe('spec 2.6 and 2.7: download_url and download_requires follow Download API Access', () => {
    test.each([
      ['license_key', 'license_key', true],
      ['activated_identifier', 'activated_identifier', true],
      ['account', 'account', false],
      ['public', null, true],
    ] as const)('%s', async (access, requires, hasUrl) => {
      const product = await system.transport.call('update-catalog.createProduct', {
        title: `Access ${access}`,
        download_access: access,
        requires_license: access !== 'public',
      });
      await release(product.id, '1.0', [{}]);
      const res = await check(product.id);
      expect(res.body.data.download_requires).toBe(requires);
      expect(res.body.data.download_url).toBe(hasUrl ? `${DOWNLOADS}/${product.id}` : null);
      expect(res.body.data.requires_license).toBe(access !== 'public');
    });
  });

  describe('bad input', () => {
    test('a product id that is not an integer is refused with INVALID_REQUEST', async () => {
      const res = await system.api().get(`${API_BASE}/updates/abc`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    });

    test('a repeated or bracketed query field is refused', async () => {
      for (const query of ['license_key=a&license_key=b', 'license_key[$ne]=x']) {
        const res = await system.api().get(`${API_BASE}/updates/1?${query}`);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('INVALID_REQUEST');
      }
    });
  });
});

describe('download_url without PUBLIC_URL', () => {
  let plain: TestSystem;
  beforeAll(async () => {
    plain = await bootSystem({ PUBLIC_URL: '' });
  });
  afterAll(() => plain?.stop());

  test('is built from the address the request reached', async () => {
    const product = await plain.transport.call('update-catalog.createProduct', { title: 'P' });
    const v = await plain.transport.call('update-catalog.createVersion', {
      product_id: product.id,
      version: '1.0',
    });
    await plain.transport.call('update-catalog.addFile', {
      version_id: v.id,
      filename: 'p.zip',
      size: 5,
      sha256: 'b'.repeat(64),
      content_type: 'application/zip',
      object_key: 'packages/p.zip',
    });
    const res = await plain.api().get(`${API_BASE}/updates/${product.id}`);
    expect(res.body.data.download_url).toBe(
      `${plain.running.gatewayUrl.replace('localhost', '127.0.0.1')}${API_BASE}/downloads/${product.id}`,
    );
  });
});

describe('spec 8: update check rate', () => {
  let limited: TestSystem;
  beforeAll(async () => {
    limited = await bootSystem({ RATE_LIMIT_UPDATES_PER_MINUTE: '3' });
  });
  afterAll(() => limited?.stop());

  test('more requests than the limit in 60 seconds from one IP get RATE_LIMITED (429)', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await limited.api().get(`${API_BASE}/updates/1`)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const res = await limited.api().get(`${API_BASE}/updates/1`);
    expect(res.body.error.code).toBe('RATE_LIMITED');
    expect(res.headers['retry-after']).toBeDefined();
  });
});
