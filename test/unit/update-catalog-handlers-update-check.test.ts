import type { DownloadAccess } from '../../libs/contracts/index.js';
import { DOWNLOADS, MINUTE, catalog } from '../support/update-catalog-harness.js';

/**
 * The update-catalog handlers on in-memory stores, with a fake license service and a clock that
 * stands still: the rules of spec 4.4 (and the catalog's own) at the handler level. The same
 * rules through the whole system: test/integration/update-check.test.ts.
 */

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
      sha256: 'a'.repeat(64),
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
      sha256: null,
    });
  });

  test('response 3: a product that does not exist gets the no-version shape with download_requires null', async () => {
    const { check } = catalog([{ key: 'KEY', product_id: 1, plan_id: 7 }]);
    const answer = {
      update_available: false,
      requires_license: false,
      download_requires: null,
      sha256: null,
    };
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
        sha256: null,
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
