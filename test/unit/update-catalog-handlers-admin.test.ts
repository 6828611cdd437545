import { minimumSystemVersionProblem, type MethodName } from '../../libs/contracts/index.js';
import { callContext, type FakeTransport } from '../../bench/support/fake-transport.js';
import { publishedData } from '../support/fake-services.js';
import { catalog } from '../support/update-catalog-harness.js';

/**
 * The update-catalog handlers on in-memory stores, with a fake license service and a clock that
 * stands still: the rules of spec 4.4 (and the catalog's own) at the handler level. The same
 * rules through the whole system: test/integration/update-check.test.ts.
 */

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

describe("a file's minimum macOS (docs/updaters/sparkle.md)", () => {
  test('the rule: only a macOS file has one', () => {
    expect(
      minimumSystemVersionProblem({ platform: 'darwin', minimum_system_version: '12.0' }),
    ).toBeNull();
    for (const platform of [null, 'linux', 'windows'] as const) {
      expect(minimumSystemVersionProblem({ platform, minimum_system_version: null })).toBeNull();
      expect(minimumSystemVersionProblem({ platform, minimum_system_version: '12.0' })).toBe(
        'minimum_system_version: only a macOS file (platform darwin) has a minimum macOS version.',
      );
    }
  });

  test('a file recorded or changed against it is INVALID_REQUEST and changes nothing', async () => {
    const { transport, product, release } = catalog();
    const p = await product();
    const version = await release(p.id, { version: '1.0', files: [] });
    const file = (fields: object) =>
      transport.call('update-catalog.addFile', {
        version_id: version.id,
        filename: 'App.zip',
        size: 1,
        sha256: 'a'.repeat(64),
        content_type: 'application/zip',
        object_key: 'packages/App.zip',
        ...fields,
      });
    const invalid = { code: 'INVALID_REQUEST', status: 400 };
    await expect(file({ minimum_system_version: '12.0' })).rejects.toMatchObject(invalid);
    await expect(file({ platform: 'linux', minimum_system_version: '12.0' })).rejects.toMatchObject(
      invalid,
    );
    const mac = await file({ platform: 'darwin', minimum_system_version: '12.0' });
    const linux = await file({ platform: 'linux' });
    const update = (changes: object) =>
      transport.call('update-catalog.updateFile', changes as { id: number });
    await expect(update({ id: mac.id, platform: null })).rejects.toMatchObject(invalid);
    await expect(update({ id: linux.id, minimum_system_version: '11.0' })).rejects.toMatchObject(
      invalid,
    );
    const { files } = await transport.call('update-catalog.getVersion', { id: version.id });
    expect(files.map((f) => [f.platform, f.minimum_system_version])).toEqual([
      ['darwin', '12.0'],
      ['linux', null],
    ]);
    await expect(
      update({ id: mac.id, platform: 'linux', minimum_system_version: null }),
    ).resolves.toMatchObject({ platform: 'linux', minimum_system_version: null });
    await expect(
      update({ id: linux.id, platform: 'darwin', minimum_system_version: '13.0' }),
    ).resolves.toMatchObject({ platform: 'darwin', minimum_system_version: '13.0' });
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
      sha512: null,
      content_type: 'application/zip',
      object_key: 'packages/late.zip',
      platform: null,
      arch: null,
      signature: null,
      minimum_system_version: null,
      requires_entitlement: null,
    };
    for (const late of [
      () =>
        handlers['update-catalog.createProduct'](
          {
            title: 'Late',
            requires_license: true,
            download_access: 'public',
            bundle_items: [],
            joomla: null,
            wordpress: null,
            trial_plan_id: null,
          },
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
            channel: 'stable',
            rollout_percent: 100,
            requires_entitlement: null,
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

describe('version.published: a version becomes published', () => {
  /** The data of the version.published events so far, each checked against its schema. */
  const publishedVersions = (transport: FakeTransport) =>
    publishedData(transport.domainEvents, 'version.published');

  test('a version created published publishes version.published', async () => {
    const { product, transport, clock } = catalog();
    const p = await product();
    const created = await transport.call('update-catalog.createVersion', {
      product_id: p.id,
      version: '1.2.0',
      release_date: '2026-02-03',
    });
    expect(publishedVersions(transport)).toEqual([
      { product_id: p.id, version_id: created.id, version: '1.2.0', release_date: '2026-02-03' },
    ]);
    expect(transport.domainEventsOf('version.published')[0]?.timestamp).toBe(clock().toISOString());
  });

  test('a version created unpublished publishes version.published when an update publishes it, and only then', async () => {
    const { product, transport } = catalog();
    const p = await product();
    const draft = await transport.call('update-catalog.createVersion', {
      product_id: p.id,
      version: '2.0.0-beta',
      published: false,
    });
    await transport.call('update-catalog.updateVersion', { id: draft.id, release_notes: 'Beta.' });
    expect(publishedVersions(transport)).toEqual([]);
    await transport.call('update-catalog.updateVersion', {
      id: draft.id,
      version: '2.0.0',
      published: true,
    });
    expect(publishedVersions(transport)).toEqual([
      { product_id: p.id, version_id: draft.id, version: '2.0.0', release_date: null },
    ]);
  });

  test('an update of a version already published publishes nothing; published again after being withdrawn, it does', async () => {
    const { product, transport } = catalog();
    const p = await product();
    const version = await transport.call('update-catalog.createVersion', {
      product_id: p.id,
      version: '1.0.0',
    });
    await transport.call('update-catalog.updateVersion', { id: version.id, published: true });
    await transport.call('update-catalog.updateVersion', {
      id: version.id,
      release_notes: 'Notes.',
    });
    expect(publishedVersions(transport)).toHaveLength(1);
    await transport.call('update-catalog.updateVersion', { id: version.id, published: false });
    await transport.call('update-catalog.updateVersion', { id: version.id, published: true });
    expect(publishedVersions(transport).map((data) => data.version_id)).toEqual([
      version.id,
      version.id,
    ]);
  });

  test('a refused publication publishes nothing', async () => {
    const { product, transport } = catalog();
    const p = await product();
    await expect(
      transport.call('update-catalog.updateVersion', { id: 987654, published: true }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      transport.call('update-catalog.createVersion', { product_id: 987654, version: '1.0.0' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await transport.call('update-catalog.createVersion', { product_id: p.id, version: '1.0.0' });
    expect(publishedVersions(transport).map((data) => data.product_id)).toEqual([p.id]);
  });
});

describe('version.rollout_changed: an admin moves a staged rollout', () => {
  const rolloutChanges = (transport: FakeTransport) =>
    publishedData(transport.domainEvents, 'version.rollout_changed');

  test('raising, pausing and restoring a rollout each publish the version, its channel, the new and the previous percentage', async () => {
    const { product, transport, clock } = catalog();
    const p = await product();
    const version = await transport.call('update-catalog.createVersion', {
      product_id: p.id,
      version: '3.0.0',
      channel: 'beta',
      rollout_percent: 10,
    });
    // Created at 10 %: a rollout set, not changed.
    expect(rolloutChanges(transport)).toEqual([]);
    for (const percent of [50, 0, 100]) {
      await transport.call('update-catalog.updateVersion', {
        id: version.id,
        rollout_percent: percent,
      });
    }
    const facts = { product_id: p.id, version_id: version.id, version: '3.0.0', channel: 'beta' };
    expect(rolloutChanges(transport)).toEqual([
      { ...facts, rollout_percent: 50, previous_rollout_percent: 10 },
      { ...facts, rollout_percent: 0, previous_rollout_percent: 50 },
      { ...facts, rollout_percent: 100, previous_rollout_percent: 0 },
    ]);
    expect(transport.domainEventsOf('version.rollout_changed')[0]?.timestamp).toBe(
      clock().toISOString(),
    );
  });

  test('an update that leaves the percentage as it was, or is refused, publishes nothing', async () => {
    const { product, transport } = catalog();
    const p = await product();
    const version = await transport.call('update-catalog.createVersion', {
      product_id: p.id,
      version: '1.0.0',
      rollout_percent: 20,
    });
    await transport.call('update-catalog.updateVersion', { id: version.id, rollout_percent: 20 });
    await transport.call('update-catalog.updateVersion', { id: version.id, channel: 'rc' });
    await transport.call('update-catalog.updateVersion', { id: version.id, published: false });
    await expect(
      transport.call('update-catalog.updateVersion', { id: 987654, rollout_percent: 50 }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(rolloutChanges(transport)).toEqual([]);
  });
});
