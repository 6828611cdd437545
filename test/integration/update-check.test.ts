import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { Connection } from 'mongoose';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';
import { databaseOf } from '../support/databases.js';

let system: TestSystem;
/** The update catalog's database, to put upload dates in the past (spec 2.6 `date`). */
let catalogDb: Connection;
beforeAll(async () => {
  system = await bootSystem({ PUBLIC_URL: 'https://updates.example.test' });
  catalogDb = await databaseOf(system, 'update-catalog');
});
afterAll(async () => {
  await catalogDb?.close();
  await system?.stop();
});

const PAST = '2020-01-01T00:00:00.000Z';
const DOWNLOADS = `https://updates.example.test${API_BASE}/downloads`;

interface FileSpec {
  plan_id?: number | null;
  include_in_updates?: boolean;
  size?: number;
  sha256?: string;
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
  for (const spec of files) await addFile(created.id, spec);
  return created;
}

let fileSeq = 0;
/** Records an uploaded file (the update check reads metadata only); uploaded now. */
async function addFile(versionId: number, spec: FileSpec) {
  return system.transport.call('update-catalog.addFile', {
    version_id: versionId,
    filename: `file-${fileSeq}.zip`,
    plan_id: spec.plan_id ?? null,
    include_in_updates: spec.include_in_updates ?? true,
    size: spec.size ?? 1000,
    sha256: spec.sha256 ?? 'a'.repeat(64),
    content_type: 'application/zip',
    object_key: `packages/test/file-${fileSeq++}.zip`,
  });
}

const check = (productId: number, query = '') =>
  system.api().get(`${API_BASE}/updates/${productId}${query ? `?${query}` : ''}`);

describe('spec 4.4 GET /updates/{product_id}', () => {
  test('response 1: a version is available, with every field of 2.6', async () => {
    const { product } = await system.license();
    await release(product.id, '1.4.2', [{ size: 123456, sha256: 'b'.repeat(64) }], {
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
        sha256: 'b'.repeat(64),
        requires_license: true,
      },
    });
  });

  test('date falls back to the upload date of the file (Y-m-d), not the creation of the version', async () => {
    const { product } = await system.license();
    const version = await release(product.id, '1.0', [{}]);
    // Dates of the past, so the answer cannot be today's date by chance.
    await catalogDb
      .collection<{ _id: number }>('versions')
      .updateOne({ _id: version.id }, { $set: { created_at: new Date('2020-01-01T12:00:00Z') } });
    await catalogDb
      .collection('files')
      .updateOne(
        { version_id: version.id },
        { $set: { uploaded_at: new Date('2021-06-15T23:30:00Z') } },
      );
    const res = await check(product.id);
    expect(res.body.data).toMatchObject({ version: '1.0', date: '2021-06-15' });
    expect(res.body.data.release_notes).toBeNull();
  });

  test('response 2: no version gives update_available false, requires_license and download_requires', async () => {
    const { product } = await system.license();
    const res = await check(product.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        update_available: false,
        requires_license: true,
        download_requires: 'license_key',
        sha256: null,
      },
    });
  });

  test('response 3: a product that does not exist gets the no-version shape with download_requires null', async () => {
    const res = await check(987654321);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ update_available: false, download_requires: null });
    expect(Object.keys(res.body.data).sort()).toEqual([
      'download_requires',
      'requires_license',
      'sha256',
      'update_available',
    ]);
  });

  test('sha256 (spec 2.6 gains it): the lowercase hex SHA-256 of the file an updater would receive', async () => {
    const { product, plan, key } = await system.license();
    const [all, planned] = ['1'.repeat(64), 'f'.repeat(64)];
    await release(product.id, '3.0', [{ sha256: all }, { plan_id: plan.id, sha256: planned }]);
    // Without a key the all-plans file, with the plan's key the plan's file (rule 4).
    expect((await check(product.id)).body.data.sha256).toBe(all);
    expect((await check(product.id, `dlid=${key}`)).body.data.sha256).toBe(planned);
  });

  test('sha256 is the SHA-256 of the bytes uploaded, which the download serves', async () => {
    const { product, key } = await system.license();
    const version = await system.transport.call('update-catalog.createVersion', {
      product_id: product.id,
      version: '4.0',
    });
    const bytes = Buffer.from('the bytes of version 4.0');
    const upload = await system
      .admin()
      .post(`/admin/v1/versions/${version.id}/files`)
      .set('Authorization', `Bearer ${system.config.ADMIN_TOKENS[0]}`)
      .attach('file', bytes, 'plugin-4.0.zip');
    expect(upload.status).toBe(201);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect((await check(product.id)).body.data.sha256).toBe(sha256);
    const download = await system
      .api()
      .get(`${API_BASE}/downloads/${product.id}?dlid=${key}`)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(
      createHash('sha256')
        .update(download.body as Buffer)
        .digest('hex'),
    ).toBe(sha256);
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

  test('rule 3: a version created earlier whose file is uploaded later wins', async () => {
    const { product } = await system.license();
    const three = await release(product.id, '3.0.0', []);
    await release(product.id, '2.5.0', [{ size: 25 }]);
    expect((await check(product.id)).body.data.version).toBe('2.5.0');
    await addFile(three.id, { size: 30 });
    expect((await check(product.id)).body.data).toMatchObject({ version: '3.0.0', file_size: 30 });
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

  describe('spec 4.4 errors are only 429 and 500: input that cannot be used is answered, not refused', () => {
    const NO_PRODUCT = {
      data: {
        update_available: false,
        requires_license: false,
        download_requires: null,
        sha256: null,
      },
    };

    test('a path that names no product gets the no-version shape with download_requires null (response 3)', async () => {
      for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999', '%E0%A4%A']) {
        const res = await system.api().get(`${API_BASE}/updates/${id}`);
        expect([id, res.status, res.body]).toEqual([id, 200, NO_PRODUCT]);
      }
    });

    test('a key that cannot be used is ignored: the answer is the one without a key (spec 5.2)', async () => {
      const { product, plan, key } = await system.license();
      await release(product.id, '5.0', [{ size: 100 }, { plan_id: plan.id, size: 200 }]);
      const withoutKey = (await check(product.id)).body;
      expect(withoutKey.data).toMatchObject({ file_size: 100 });
      for (const query of [
        'license_key=%20',
        'dlid=%09',
        `license_key=${'k'.repeat(256)}`,
        `license_key=${key}&license_key=other`,
        `dlid=${key}&license_key=other`,
        `license_key[$ne]=x`,
        `license_key=${key}%ZZ`,
        `license_key=${key}%00`,
      ]) {
        const res = await check(product.id, query);
        expect([query, res.status, res.body]).toEqual([query, 200, withoutKey]);
      }
    });

    test('the same key sent twice, or as both license_key and dlid, is still the key', async () => {
      const { product, plan, key } = await system.license();
      await release(product.id, '5.0', [{ size: 100 }, { plan_id: plan.id, size: 200 }]);
      for (const query of [
        `license_key=${key}&license_key=${key}`,
        `dlid=${key}&license_key=${key}`,
      ]) {
        const res = await check(product.id, query);
        expect([query, res.status, res.body.data.file_size, res.body.data.license_status]).toEqual([
          query,
          200,
          200,
          'active',
        ]);
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

  /** A GET with a Host header of the caller's choosing. */
  function getWithHost(path: string, host: string) {
    return new Promise<{ status: number; body: { data?: Record<string, unknown> } }>(
      (resolve, reject) => {
        const { hostname, port } = new URL(plain.running.gatewayUrl);
        const req = httpRequest({ host: hostname, port, path, headers: { host } }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        });
        req.on('error', reject);
        req.end();
      },
    );
  }

  test("names the gateway's own address, whatever Host header the client sends", async () => {
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
    const own = `${plain.running.gatewayUrl}${API_BASE}/downloads/${product.id}`;
    expect(
      (await plain.api().get(`${API_BASE}/updates/${product.id}`)).body.data.download_url,
    ).toBe(own);
    for (const host of ['evil.example', 'evil.example:99999', 'a b', '']) {
      const res = await getWithHost(`${API_BASE}/updates/${product.id}`, host);
      expect([host, res.status, res.body.data?.download_url]).toEqual([host, 200, own]);
    }
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

  test('the limit counts the update checks of the last 60 seconds', async () => {
    const res = await limited.api().get(`${API_BASE}/updates/1`);
    expect(res.status).toBe(429);
    expect(res.headers['ratelimit-policy']).toMatch(/"updates-ip"; q=3; w=60(;|,|$)/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
  });
});
