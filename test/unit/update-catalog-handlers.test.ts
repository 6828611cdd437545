import type {
  CreateProductRequest,
  DownloadAccess,
  MethodName,
} from '../../libs/contracts/index.js';
import { createUpdateCatalogHandlers } from '../../services/update-catalog/handlers.js';
import {
  callContext,
  fakeLicenseService,
  FakeTransport,
  fixedClock,
  type FakeLicense,
} from '../support/fake-services.js';
import { memoryCatalogStores } from '../support/memory-catalog-stores.js';

/**
 * The update-catalog handlers on in-memory stores, with a fake license service and a clock that
 * stands still: the rules of spec 4.4 (and the catalog's own) at the handler level. The same
 * rules through the whole system: test/integration/update-check.test.ts.
 */

/** What a test says of a package file; the rest is the same for every file. */
interface FileFields {
  plan_id?: number | null;
  include_in_updates?: boolean;
  size?: number;
}

const DOWNLOADS = 'https://shop.example/api/index.php/v1/licensing/downloads';
const MINUTE = 60_000;

/** The handlers, on fresh stores at 2026-03-01 09:00 UTC, and the licenses the fake knows. */
function catalog(licenses: FakeLicense[] = []) {
  const clock = fixedClock('2026-03-01T09:00:00.000Z');
  const stores = memoryCatalogStores({ clock });
  const transport = new FakeTransport(clock).answer(fakeLicenseService(licenses));
  const handlers = createUpdateCatalogHandlers({ stores, transport, clock });
  transport.answer(handlers);

  const product = (fields: Partial<CreateProductRequest> = {}) =>
    transport.call('update-catalog.createProduct', { title: 'Product', ...fields });

  /** A version whose files are uploaded one minute apart, each after a minute has passed. */
  async function release(
    productId: number,
    {
      files,
      ...fields
    }: {
      version: string;
      files: FileFields[];
      published?: boolean;
      release_date?: string | null;
      release_notes?: string;
    },
  ) {
    const created = await transport.call('update-catalog.createVersion', {
      product_id: productId,
      ...fields,
    });
    for (const file of files) await upload(created.id, file);
    return created;
  }

  let uploads = 0;
  async function upload(versionId: number, file: FileFields = {}) {
    clock.advance(MINUTE);
    uploads++;
    return transport.call('update-catalog.addFile', {
      version_id: versionId,
      filename: `file-${uploads}.zip`,
      sha256: 'a'.repeat(64),
      content_type: 'application/zip',
      object_key: `packages/${uploads}/file.zip`,
      size: 1000,
      ...file,
    });
  }

  const check = (productId: number, licenseKey: string | null = null) =>
    transport.call('update-catalog.checkUpdate', {
      product_id: productId,
      license_key: licenseKey,
      downloads_url: DOWNLOADS,
    });

  return { clock, stores, transport, handlers, product, release, upload, check };
}

describe('spec 4.4 responses', () => {
  test('response 1: a version is available, with every field of 2.6', async () => {
    const { product, release, check } = catalog();
    const p = await product({ title: 'Gallery' });
    await release(p.id, {
      version: '1.4.2',
      files: [{ size: 123456 }],
      release_date: '2026-02-03',
      release_notes: 'Fixes.',
    });
    expect(await check(p.id)).toEqual({
      update_available: true,
      name: 'Gallery',
      version: '1.4.2',
      download_url: `${DOWNLOADS}/${p.id}`,
      download_requires: 'license_key',
      release_notes: 'Fixes.',
      date: '2026-02-03',
      file_size: 123456,
      requires_license: true,
    });
  });

  test('response 1: date is the upload date of the file (Y-m-d, UTC) when no release date is set', async () => {
    const { clock, product, release, upload, check } = catalog();
    const p = await product();
    const version = await release(p.id, { version: '1.0', files: [] });
    clock.advance(20 * 60 * MINUTE); // to 2026-03-02, after the version was created
    await upload(version.id);
    expect(await check(p.id)).toMatchObject({ version: '1.0', date: '2026-03-02' });
  });

  test('response 2: no version gives update_available false, requires_license and download_requires', async () => {
    const { product, check } = catalog();
    const p = await product();
    expect(await check(p.id)).toEqual({
      update_available: false,
      requires_license: true,
      download_requires: 'license_key',
    });
  });

  test('response 3: a product that does not exist gets the no-version shape with download_requires null', async () => {
    const { check } = catalog([{ key: 'KEY', product_id: 1, plan_id: 7 }]);
    const answer = { update_available: false, requires_license: false, download_requires: null };
    expect(await check(987654)).toEqual(answer);
    expect(await check(987654, 'KEY')).toEqual(answer);
  });
});

describe('spec 4.4: which version is returned', () => {
  test('rule 1: only published versions count; publishing one later makes it the one offered', async () => {
    const { transport, product, release, check } = catalog();
    const p = await product();
    await release(p.id, { version: '1.0', files: [{}] });
    const draft = await release(p.id, { version: '2.0', files: [{}], published: false });
    expect(await check(p.id)).toMatchObject({ version: '1.0' });
    await transport.call('update-catalog.updateVersion', { id: draft.id, published: true });
    expect(await check(p.id)).toMatchObject({ version: '2.0' });
  });

  test('rule 2: a version whose files are all unticked is never offered', async () => {
    const { product, release, check } = catalog();
    const p = await product();
    await release(p.id, { version: '1.0', files: [{ size: 10 }] });
    await release(p.id, {
      version: '1.1',
      files: [{ include_in_updates: false }, { include_in_updates: false }],
    });
    expect(await check(p.id)).toMatchObject({ version: '1.0', file_size: 10 });
  });

  test('rule 2: unticking a file takes it out of the update check', async () => {
    const { transport, product, release, check } = catalog();
    const p = await product();
    const version = await release(p.id, { version: '3.0', files: [{}] });
    const [file] = (await transport.call('update-catalog.getVersion', { id: version.id })).files;
    await transport.call('update-catalog.updateFile', { id: file!.id, include_in_updates: false });
    expect(await check(p.id)).toMatchObject({ update_available: false });
  });

  test('rule 3: the most recently uploaded version wins, whatever its release date', async () => {
    const { product, release, check } = catalog();
    const p = await product();
    await release(p.id, { version: '2.0', files: [{}], release_date: '2026-05-01' });
    await release(p.id, { version: '1.9.1', files: [{}], release_date: '2025-01-01' });
    expect(await check(p.id)).toMatchObject({ version: '1.9.1', date: '2025-01-01' });
  });

  test('rule 3: a version created earlier whose file is uploaded later wins', async () => {
    const { product, release, upload, check } = catalog();
    const p = await product();
    const three = await release(p.id, { version: '3.0.0', files: [] });
    await release(p.id, { version: '2.5.0', files: [{ size: 25 }] });
    expect(await check(p.id)).toMatchObject({ version: '2.5.0' });
    await upload(three.id, { size: 30 });
    expect(await check(p.id)).toMatchObject({ version: '3.0.0', file_size: 30 });
  });

  test('rule 4: without a key only all-plans files count; with a key the plan-specific file is preferred', async () => {
    const { product, release, check } = catalog([{ key: 'PLAN-7', product_id: 1, plan_id: 7 }]);
    const p = await product();
    await release(p.id, {
      version: '5.0',
      files: [{ size: 100 }, { plan_id: 7, size: 200 }, { plan_id: 8, size: 300 }],
    });
    expect(await check(p.id)).toMatchObject({ version: '5.0', file_size: 100 });
    expect(await check(p.id, 'PLAN-7')).toMatchObject({ version: '5.0', file_size: 200 });
  });

  test("rule 4: a version with only a plan's file is offered to that plan only", async () => {
    const { product, release, check } = catalog([
      { key: 'PLAN-7', product_id: 1, plan_id: 7 },
      { key: 'PLAN-8', product_id: 1, plan_id: 8 },
    ]);
    const p = await product();
    await release(p.id, { version: '1.0', files: [{ size: 1 }] });
    await release(p.id, { version: '1.1-pro', files: [{ plan_id: 7, size: 2 }] });
    expect(await check(p.id)).toMatchObject({ version: '1.0' });
    expect(await check(p.id, 'PLAN-8')).toMatchObject({ version: '1.0' });
    expect(await check(p.id, 'PLAN-7')).toMatchObject({ version: '1.1-pro' });
  });

  test('rule 5: a bundle key sees the all-plans files of each product in the bundle', async () => {
    const { product, release, check } = catalog([
      { key: 'BUNDLE', product_id: 3, bundle_items: [1, 2], plan_id: 7 },
    ]);
    const addOn = await product({ title: 'Add-on' });
    const other = await product({ title: 'Other add-on' });
    await product({ title: 'Bundle', bundle_items: [addOn.id, other.id] });
    await release(addOn.id, { version: '7.0', files: [{ size: 70 }, { plan_id: 7, size: 71 }] });
    await release(other.id, { version: '8.0', files: [{ size: 80 }, { plan_id: 7, size: 81 }] });
    expect(await check(addOn.id, 'BUNDLE')).toMatchObject({
      name: 'Add-on',
      version: '7.0',
      file_size: 70,
      license_status: 'active',
    });
    expect(await check(other.id, 'BUNDLE')).toMatchObject({ version: '8.0', file_size: 80 });
  });

  describe('rule 6: the version is reported whatever the license state, with the state added', () => {
    test('an expired key gets the metadata and license_status expired', async () => {
      const expiresAt = '2026-01-01T00:00:00.000Z';
      const { product, release, check } = catalog([
        { key: 'EXPIRED', product_id: 1, plan_id: 7, status: 'expired', expires_at: expiresAt },
      ]);
      const p = await product();
      await release(p.id, { version: '9.0', files: [{}] });
      expect(await check(p.id, 'EXPIRED')).toMatchObject({
        update_available: true,
        version: '9.0',
        license_status: 'expired',
        license_expires_at: expiresAt,
        auto_renew: false,
        next_payment_at: null,
      });
    });

    test.each(['suspended', 'revoked', 'cancelled'] as const)(
      'a %s key still gets the version',
      async (status) => {
        const { product, release, check } = catalog([
          { key: 'KEY', product_id: 1, plan_id: 7, status },
        ]);
        const p = await product();
        await release(p.id, { version: '1.0', files: [{}] });
        expect(await check(p.id, 'KEY')).toMatchObject({ version: '1.0', license_status: status });
      },
    );

    test('renewal data is reported for a covering key', async () => {
      const { product, release, check } = catalog([
        {
          key: 'RENEWS',
          product_id: 1,
          plan_id: 7,
          expires_at: '2031-01-01T00:00:00.000Z',
          auto_renew: true,
          next_payment_at: '2030-12-25T00:00:00.000Z',
        },
      ]);
      const p = await product();
      await release(p.id, { version: '1.0', files: [{}] });
      expect(await check(p.id, 'RENEWS')).toMatchObject({
        license_status: 'active',
        license_expires_at: '2031-01-01T00:00:00.000Z',
        auto_renew: true,
        next_payment_at: '2030-12-25T00:00:00.000Z',
      });
    });

    test('a key for another product, or an unknown key, adds nothing and scopes nothing', async () => {
      const { product, release, check } = catalog([{ key: 'OTHER', product_id: 2, plan_id: 7 }]);
      const p = await product();
      await product();
      await release(p.id, { version: '1.0', files: [{ size: 100 }, { plan_id: 7, size: 200 }] });
      const withoutKey = await check(p.id);
      expect(await check(p.id, 'OTHER')).toEqual(withoutKey);
      expect(await check(p.id, 'UNKNOWN')).toEqual(withoutKey);
      expect(withoutKey).not.toHaveProperty('license_status');
    });

    test('no version: the no-version shape, without license state, whatever the key', async () => {
      const { product, check } = catalog([{ key: 'KEY', product_id: 1, plan_id: 7 }]);
      const p = await product();
      expect(await check(p.id, 'KEY')).toEqual({
        update_available: false,
        requires_license: true,
        download_requires: 'license_key',
      });
    });
  });
});

describe('spec 2.6 and 2.7: download_url and download_requires follow Download API Access', () => {
  test.each([
    ['license_key', 'license_key', true],
    ['activated_identifier', 'activated_identifier', true],
    ['account', 'account', false],
    ['public', null, true],
  ] as const)('%s', async (access: DownloadAccess, requires, hasUrl) => {
    const { product, release, check } = catalog();
    const p = await product({ download_access: access, requires_license: access !== 'public' });
    await release(p.id, { version: '1.0', files: [{}] });
    expect(await check(p.id)).toMatchObject({
      download_requires: requires,
      download_url: hasUrl ? `${DOWNLOADS}/${p.id}` : null,
      requires_license: access !== 'public',
    });
  });
});

describe('spec 4.5: the file a download gets (update-catalog.selectFile), by the rules of 4.4', () => {
  test('the plan-specific file for its plan, the all-plans file otherwise; none: selection null', async () => {
    const { transport, product, release } = catalog();
    const p = await product();
    const empty = await product();
    const version = await release(p.id, {
      version: '2.0',
      files: [{ size: 100 }, { plan_id: 7, size: 200 }],
    });
    const select = (productId: number, planId: number | null) =>
      transport.call('update-catalog.selectFile', { product_id: productId, plan_id: planId });
    expect(await select(p.id, 7)).toMatchObject({
      product: { id: p.id },
      selection: { version: { id: version.id, version: '2.0' }, file: { size: 200 } },
    });
    expect((await select(p.id, null)).selection?.file.size).toBe(100);
    expect((await select(empty.id, null)).selection).toBeNull();
    await expect(select(999, null)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('spec 2.2: bundles', () => {
  test('a bundle lists existing products, each once, never itself', async () => {
    const { product } = catalog();
    const item = await product();
    const bundle = await product({ title: 'Bundle', bundle_items: [item.id] });
    expect(bundle.bundle_items).toEqual([item.id]);
    for (const fields of [
      { bundle_items: [item.id, item.id] },
      { bundle_items: [999] },
      { id: 50, bundle_items: [50] },
    ]) {
      await expect(product(fields)).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        status: 400,
      });
    }
  });

  test('changing a bundle announces the change (caches of bundles drop it)', async () => {
    const { transport, product } = catalog();
    const item = await product();
    const bundle = await product({ title: 'Bundle' });
    const changed = await transport.call('update-catalog.updateProduct', {
      id: bundle.id,
      bundle_items: [item.id],
    });
    expect(changed).toMatchObject({ title: 'Bundle', bundle_items: [item.id] });
    expect(transport.published).toEqual([
      { event: 'update-catalog.product-changed', payload: { id: bundle.id } },
    ]);
    await expect(
      transport.call('update-catalog.updateProduct', { id: bundle.id, bundle_items: [bundle.id] }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });
});

describe('the catalog in admin: products, versions and package files', () => {
  test('ids follow a sequence that skips ids chosen in admin; a chosen id taken is ALREADY_EXISTS', async () => {
    const { transport, product } = catalog();
    expect((await product({ id: 2 })).id).toBe(2);
    expect((await product()).id).toBe(1);
    expect((await product()).id).toBe(3);
    await expect(product({ id: 2 })).rejects.toMatchObject({ code: 'ALREADY_EXISTS', status: 409 });
    const listed = await transport.call('update-catalog.listProducts', {});
    expect(listed.products.map((p) => p.id)).toEqual([1, 2, 3]);
  });

  test('what does not exist is NOT_FOUND', async () => {
    const { transport } = catalog();
    for (const call of [
      () => transport.call('update-catalog.getProduct', { id: 9 }),
      () => transport.call('update-catalog.updateProduct', { id: 9, title: 'T' }),
      () => transport.call('update-catalog.createVersion', { product_id: 9, version: '1.0' }),
      () => transport.call('update-catalog.listVersions', { product_id: 9 }),
      () => transport.call('update-catalog.getVersion', { id: 9 }),
      () => transport.call('update-catalog.updateVersion', { id: 9, published: false }),
      () =>
        transport.call('update-catalog.addFile', {
          version_id: 9,
          filename: 'a.zip',
          size: 1,
          sha256: 'a'.repeat(64),
          content_type: 'application/zip',
          object_key: 'packages/a.zip',
        }),
      () => transport.call('update-catalog.updateFile', { id: 9, include_in_updates: false }),
      () => transport.call('update-catalog.deleteFile', { id: 9 }),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
    }
  });

  test('versions are listed most recently uploaded first, with their files and uploaded_at of the newest', async () => {
    const { clock, transport, product, release, upload } = catalog();
    const p = await product();
    const old = await release(p.id, { version: '1.0', files: [{}] });
    const empty = await release(p.id, { version: '3.0', files: [] });
    await release(p.id, { version: '2.0', files: [{}] });
    const newest = await upload(old.id);
    const { versions } = await transport.call('update-catalog.listVersions', { product_id: p.id });
    expect(versions.map((v) => [v.version, v.files.length])).toEqual([
      ['1.0', 2],
      ['2.0', 1],
      ['3.0', 0],
    ]);
    expect(versions[0]!.uploaded_at).toBe(newest.uploaded_at);
    expect(versions[0]!.uploaded_at).toBe(clock().toISOString());
    expect(versions[2]).toMatchObject({ id: empty.id, uploaded_at: null });
  });

  test('a deleted file answers with its object key and is gone from its version', async () => {
    const { transport, product, release } = catalog();
    const p = await product();
    const version = await release(p.id, { version: '1.0', files: [{}] });
    const [file] = (await transport.call('update-catalog.getVersion', { id: version.id })).files;
    const deleted = await transport.call('update-catalog.deleteFile', { id: file!.id });
    expect(deleted).toEqual(file);
    expect((await transport.call('update-catalog.getVersion', { id: version.id })).files).toEqual(
      [],
    );
  });
});

describe('RPC deadlines: a call whose caller stopped waiting writes nothing', () => {
  test('creating or changing products, versions and files stops before the write', async () => {
    const { clock, handlers, stores, product, release } = catalog();
    const p = await product();
    const version = await release(p.id, { version: '1.0', files: [{}] });
    const [file] = await stores.packageFiles.list({ version_id: version.id });
    const gone = (method: MethodName) =>
      callContext({ method, clock, deadline: clock().getTime() - 1 });
    const lateFile = {
      version_id: version.id,
      filename: 'late.zip',
      plan_id: null,
      include_in_updates: true,
      size: 1,
      sha256: 'b'.repeat(64),
      content_type: 'application/zip',
      object_key: 'packages/late.zip',
    };
    for (const late of [
      () =>
        handlers['update-catalog.createProduct'](
          { title: 'Late', requires_license: true, download_access: 'public', bundle_items: [] },
          gone('update-catalog.createProduct'),
        ),
      () =>
        handlers['update-catalog.updateProduct'](
          { id: p.id, title: 'Late' },
          gone('update-catalog.updateProduct'),
        ),
      () =>
        handlers['update-catalog.createVersion'](
          {
            product_id: p.id,
            version: '2.0',
            release_notes: null,
            release_date: null,
            published: true,
          },
          gone('update-catalog.createVersion'),
        ),
      () => handlers['update-catalog.addFile'](lateFile, gone('update-catalog.addFile')),
      () =>
        handlers['update-catalog.updateFile'](
          { id: file!.id, include_in_updates: false },
          gone('update-catalog.updateFile'),
        ),
      () =>
        handlers['update-catalog.deleteFile']({ id: file!.id }, gone('update-catalog.deleteFile')),
    ]) {
      await expect(late()).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    }
    expect(await stores.products.list()).toEqual([expect.objectContaining({ title: 'Product' })]);
    expect(await stores.versions.list({ product_id: p.id })).toHaveLength(1);
    expect(await stores.packageFiles.list({ product_id: p.id })).toEqual([file]);
  });
});
