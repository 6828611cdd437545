import { jest } from '@jest/globals';
import { ReleaseCatalog } from '../../services/update-catalog/release-catalog.js';
import { TTL_MS, catalog } from '../support/update-catalog-harness.js';

/**
 * The update-catalog handlers on in-memory stores, with a fake license service and a clock that
 * stands still: the rules of spec 4.4 (and the catalog's own) at the handler level. The same
 * rules through the whole system: test/integration/update-check.test.ts.
 */

describe('spec 4.4 and 4.5: the releases kept per product (update check, file selection)', () => {
  /**
   * A product with 1.0 published (one all-plans file of 10 bytes) and 2.0 a draft (one of 20),
   * whose releases an update check has just kept; nothing published yet.
   */
  async function kept() {
    const c = catalog();
    const p = await c.product({ title: 'Gallery' });
    const one = await c.release(p.id, { version: '1.0', files: [{ size: 10 }] });
    const draft = await c.release(p.id, {
      version: '2.0',
      files: [{ size: 20 }],
      published: false,
    });
    const [file] = await c.stores.packageFiles.list({ version_id: one.id });
    expect(await c.check(p.id)).toMatchObject({ name: 'Gallery', version: '1.0', file_size: 10 });
    c.transport.published.length = 0;
    return { ...c, p, one, draft, file: file! };
  }
  type Kept = Awaited<ReturnType<typeof kept>>;

  /** Each write that changes a product's releases, and what the next update check answers. */
  const writes: Array<[string, (k: Kept) => Promise<unknown>, Record<string, unknown>]> = [
    [
      'updateProduct',
      ({ transport, p }) =>
        transport.call('update-catalog.updateProduct', {
          id: p.id,
          title: 'Renamed',
          download_access: 'public',
        }),
      { name: 'Renamed', download_requires: null },
    ],
    [
      // A version without files is offered to nobody: the answer stays, what is kept changes.
      'createVersion',
      ({ transport, p }) =>
        transport.call('update-catalog.createVersion', { product_id: p.id, version: '3.0' }),
      { version: '1.0', file_size: 10 },
    ],
    [
      'updateVersion',
      ({ transport, draft }) =>
        transport.call('update-catalog.updateVersion', { id: draft.id, published: true }),
      { version: '2.0', file_size: 20 },
    ],
    [
      'addFile',
      ({ upload, one }) => upload(one.id, { size: 30 }),
      { version: '1.0', file_size: 30 },
    ],
    [
      'updateFile',
      ({ transport, file }) =>
        transport.call('update-catalog.updateFile', { id: file.id, include_in_updates: false }),
      { update_available: false },
    ],
    [
      'deleteFile',
      ({ transport, file }) => transport.call('update-catalog.deleteFile', { id: file.id }),
      { update_available: false },
    ],
  ];

  test.each(writes)(
    '%s: the next update check answers the new state, and the change is announced',
    async (_name, write, answer) => {
      const k = await kept();
      await write(k);
      expect(await k.check(k.p.id)).toMatchObject(answer);
      // What is kept now is what the stores hold.
      expect(await k.releases.find(k.p.id)).toEqual(
        await new ReleaseCatalog(k.stores, { ttlMs: 0 }).find(k.p.id),
      );
      // The other replicas (and the license and download services' product caches) drop it on this event.
      expect(k.transport.published).toEqual([
        { event: 'update-catalog.product-changed', payload: { id: k.p.id } },
      ]);
    },
  );

  test('kept releases: an update check and a file selection read nothing from the stores', async () => {
    const k = await kept();
    const reads = [
      jest.spyOn(k.stores.products, 'find'),
      jest.spyOn(k.stores.versions, 'list'),
      jest.spyOn(k.stores.packageFiles, 'listInAutoUpdates'),
    ];
    expect(await k.check(k.p.id)).toMatchObject({ version: '1.0' });
    expect((await k.select(k.p.id, 7)).selection?.file.size).toBe(10);
    expect((await k.select(k.p.id)).selection?.file.size).toBe(10);
    for (const read of reads) expect(read).not.toHaveBeenCalled();
  });

  test("the file selection answers each change at once too, for each plan's files", async () => {
    const k = await kept();
    expect((await k.select(k.p.id, 7)).selection?.file.size).toBe(10);
    await k.upload(k.one.id, { plan_id: 7, size: 70 });
    expect((await k.select(k.p.id, 7)).selection?.file.size).toBe(70);
    expect((await k.select(k.p.id, 8)).selection?.file.size).toBe(10);
    await k.transport.call('update-catalog.updateVersion', { id: k.one.id, published: false });
    expect((await k.select(k.p.id, 7)).selection).toBeNull();
  });

  test('a product that does not exist is not kept: once created, its update check answers it', async () => {
    const { product, check } = catalog();
    expect(await check(40)).toEqual({
      update_available: false,
      requires_license: false,
      download_requires: null,
      sha256: null,
    });
    await product({ id: 40, download_access: 'activated_identifier' });
    expect(await check(40)).toEqual({
      update_available: false,
      requires_license: true,
      download_requires: 'activated_identifier',
      sha256: null,
    });
  });

  test('two replicas on one database: a change through one is answered by the other once the event arrives', async () => {
    const a = catalog();
    const b = catalog([], { stores: a.stores, clock: a.clock, bus: a.bus });
    const p = await a.product();
    await a.release(p.id, { version: '1.0', files: [{}] });
    a.bus.deliver();
    expect(await b.check(p.id)).toMatchObject({ version: '1.0' });
    expect(await a.check(p.id)).toMatchObject({ version: '1.0' });

    await a.release(p.id, { version: '1.1', files: [{}] });
    expect(await a.check(p.id)).toMatchObject({ version: '1.1' });
    // Until the broker delivers the event, B answers from what it keeps.
    expect(await b.check(p.id)).toMatchObject({ version: '1.0' });
    a.bus.deliver();
    expect(await b.check(p.id)).toMatchObject({ version: '1.1' });
    expect((await b.select(p.id)).selection?.version.version).toBe('1.1');

    // And the other way round (A heard its own event too: it reads, and keeps, once more).
    expect(await a.check(p.id)).toMatchObject({ name: 'Product', version: '1.1' });
    await b.transport.call('update-catalog.updateProduct', { id: p.id, title: 'Renamed' });
    expect(await a.check(p.id)).toMatchObject({ name: 'Product' });
    b.bus.deliver();
    expect(await a.check(p.id)).toMatchObject({ name: 'Renamed' });
  });

  test('a read that began before a change is not kept', async () => {
    const { stores, transport, product, release, check } = catalog();
    const p = await product();
    const version = await release(p.id, { version: '1.0', files: [{}] });
    const [file] = await stores.packageFiles.list({ version_id: version.id });
    // The update check's read of the files answers the state before the change, held until the
    // change is made.
    const read = stores.packageFiles.listInAutoUpdates.bind(stores.packageFiles);
    let reached!: () => void;
    const readDone = new Promise<void>((resolve) => (reached = resolve));
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    jest.spyOn(stores.packageFiles, 'listInAutoUpdates').mockImplementationOnce(async (filter) => {
      const files = await read(filter);
      reached();
      await held;
      return files;
    });
    const during = check(p.id);
    await readDone;
    await transport.call('update-catalog.updateFile', { id: file!.id, include_in_updates: false });
    letGo();
    expect(await during).toMatchObject({ update_available: true, version: '1.0' });
    expect(await check(p.id)).toMatchObject({ update_available: false });
  });

  test('a change nobody announced (an event lost to a broker outage) is answered once PRODUCT_CACHE_TTL_MS has passed', async () => {
    const k = await kept();
    await k.stores.products.update(k.p.id, { title: 'Renamed behind its back' });
    k.clock.advance(TTL_MS - 1);
    expect(await k.check(k.p.id)).toMatchObject({ name: 'Gallery' });
    k.clock.advance(1);
    expect(await k.check(k.p.id)).toMatchObject({ name: 'Renamed behind its back' });
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
