import { jest } from '@jest/globals';
import type {
  CreateProductRequest,
  DownloadAccess,
  EventName,
  EventOf,
  MethodName,
} from '../../libs/contracts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { domainEventPublisher } from '../../libs/transport/domain-events.js';
import { publishedCatalogEvents } from '../../services/update-catalog/events.js';
import { createUpdateCatalogHandlers } from '../../services/update-catalog/handlers.js';
import { ReleaseCatalog } from '../../services/update-catalog/release-catalog.js';
import type { CatalogStores } from '../../services/update-catalog/stores.js';
import {
  callContext,
  fakeLicenseService,
  FakeTransport,
  fixedClock,
  publishedData,
  type FakeLicense,
  type TestClock,
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
/**
 * How long the releases of a product are kept (PRODUCT_CACHE_TTL_MS): longer than any test moves
 * its clock, so only the changes the handlers announce refresh what they keep.
 */
const TTL_MS = 24 * 60 * MINUTE;

/**
 * The broker between replicas: what any replica publishes reaches every subscriber, the
 * publisher included, when the test delivers it (and never on its own).
 */
class EventBus {
  private readonly pending: Array<EventOf<'update-catalog.product-changed'>> = [];
  private readonly listeners: Array<(id: number) => void> = [];

  onProductChanged(listener: (id: number) => void): void {
    this.listeners.push(listener);
  }

  carry(event: EventName, payload: EventOf<'update-catalog.product-changed'>): void {
    if (event === 'update-catalog.product-changed') this.pending.push(payload);
  }

  deliver(): void {
    for (const { id } of this.pending.splice(0)) {
      for (const listener of this.listeners) listener(id);
    }
  }
}

/** A replica's transport: what it publishes is recorded, and carried by the bus. */
class ReplicaTransport extends FakeTransport {
  constructor(
    clock: () => Date,
    private readonly bus: EventBus,
  ) {
    super(clock);
  }

  override async publish<E extends EventName>(event: E, payload: EventOf<E>): Promise<void> {
    await super.publish(event, payload);
    this.bus.carry(event, payload);
  }
}

/**
 * The handlers, on fresh stores at 2026-03-01 09:00 UTC, and the licenses the fake knows. They
 * keep the releases of each product as the service does (TTL_MS on the test's clock, dropped on
 * the bus's product-changed events), so every test below also checks that what they keep follows
 * the changes they make. Another replica: `catalog(licenses, { stores, clock, bus })` with the
 * first one's.
 */
function catalog(
  licenses: FakeLicense[] = [],
  shared: { stores?: CatalogStores; clock?: TestClock; bus?: EventBus } = {},
) {
  const clock = shared.clock ?? fixedClock('2026-03-01T09:00:00.000Z');
  const stores = shared.stores ?? memoryCatalogStores({ clock });
  const bus = shared.bus ?? new EventBus();
  const releases = new ReleaseCatalog(stores, {
    ttlMs: TTL_MS,
    now: () => clock().getTime(),
  });
  bus.onProductChanged((id) => releases.invalidate(id));
  const transport = new ReplicaTransport(clock, bus).answer(fakeLicenseService(licenses));
  // Domain events as the service publishes them, recorded by the transport.
  const events = publishedCatalogEvents(
    domainEventPublisher(transport, createLogger('test', 'silent')),
  );
  const handlers = createUpdateCatalogHandlers({ stores, transport, events, releases, clock });
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

  const select = (productId: number, planId: number | null = null) =>
    transport.call('update-catalog.selectFile', { product_id: productId, plan_id: planId });

  return {
    clock,
    stores,
    bus,
    releases,
    transport,
    handlers,
    product,
    release,
    upload,
    check,
    select,
  };
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
