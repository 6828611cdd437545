import { CatalogProducts } from '../../libs/cache/index.js';
import type {
  AuthorizeDownloadRequest,
  CallContext,
  DownloadAccess,
  DomainEventType,
  DownloadLogRequest,
  MethodName,
} from '../../libs/contracts/index.js';
import { DailyCounter } from '../../libs/daily-counts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { domainEventPublisher } from '../../libs/transport/domain-events.js';
import { countedDownloadEvents, downloadMetrics } from '../../services/download/daily-counts.js';
import { publishedDownloadEvents } from '../../services/download/events.js';
import { createDownloadHandlers } from '../../services/download/handlers.js';
import { DownloadLogWriter } from '../../services/download/log.js';
import { TicketSigner } from '../../services/download/tickets.js';
import { publishedCatalogEvents } from '../../services/update-catalog/events.js';
import { createUpdateCatalogHandlers } from '../../services/update-catalog/handlers.js';
import {
  callContext,
  fakeLicenseService,
  FakeTransport,
  fixedClock,
  publishedData,
  type FakeLicense,
} from '../support/fake-services.js';
import { memoryCatalogStores } from '../support/memory-catalog-stores.js';
import { memoryDailyCountStore } from '../support/memory-daily-counts.js';
import { memoryDownloadLog } from '../support/memory-download-log.js';

/**
 * The download handlers on an in-memory download log, with the update catalog's handlers on
 * in-memory stores, a fake license service and a clock that stands still: the rules of spec 4.5
 * at the handler level. The same rules through the whole system, bytes and all:
 * test/integration/downloads.test.ts.
 */

const BASE_URL = 'http://download.internal:9000';
const STORE_URL = 'http://store.internal:9000/bucket';
const STORED_AT = new Date('2026-02-01T08:00:00.000Z');
const SIGNING_KEY = 'handler-test-signing-key';
const IP = '203.0.113.5';

/** The handlers, on a fresh log and catalog at 2026-03-01 09:00 UTC, and the licenses the fake knows. */
function downloads(licenses: FakeLicense[] = [], downloadLog = memoryDownloadLog()) {
  const clock = fixedClock('2026-03-01T09:00:00.000Z');
  const transport = new FakeTransport(clock).answer(fakeLicenseService(licenses));
  const logger = createLogger('test', 'silent');
  transport.answer(
    createUpdateCatalogHandlers({
      stores: memoryCatalogStores({ clock }),
      transport,
      events: publishedCatalogEvents(domainEventPublisher(transport, logger)),
      clock,
    }),
  );
  const tickets = new TicketSigner(SIGNING_KEY, () => clock().getTime());
  const removed: string[] = [];
  const storage = {
    async remove(key: string, context?: CallContext) {
      context?.beforeWrite();
      removed.push(key);
      return true;
    },
    async stat(key: string) {
      if (broken.has(key)) throw new Error('The store is down.');
      return missing.has(key) ? null : { size: 4096, last_modified: STORED_AT };
    },
    async readUrl(
      key: string,
      options: { disposition: string; ttlSeconds: number; forClients: boolean; method?: string },
    ) {
      const query = new URLSearchParams({
        ...(options.forClients ? { public: options.method ?? 'GET' } : {}),
        disposition: options.disposition,
        ttl: String(options.ttlSeconds),
      });
      return `${STORE_URL}/${key}?${query}`;
    },
  };
  /** Keys whose objects are missing from the store, and those the store fails to look up. */
  const missing = new Set<string>();
  const broken = new Set<string>();
  // Kept as in production, and dropped by the catalog's change events.
  const products = new CatalogProducts(transport, 60_000);
  // The fake subscribes at once (start's first step), before any decision.
  void products.start();
  // The daily counts, written when read (no timer runs here).
  const counts = new DailyCounter({ store: memoryDailyCountStore(downloadMetrics), logger });
  const handlers = createDownloadHandlers({
    downloadLog,
    logWriter: new DownloadLogWriter({
      store: downloadLog,
      // Published as the service publishes them, and recorded by the fake transport; counted.
      events: countedDownloadEvents(
        publishedDownloadEvents(domainEventPublisher(transport, logger), logger),
        counts,
      ),
      logger,
      batchMs: 50,
      clock,
    }),
    storage,
    transport,
    products,
    tickets,
    baseUrl: `${BASE_URL}/`,
    counts,
  });
  transport.answer(handlers);

  const product = (download_access: DownloadAccess, bundle_items: number[] = []) =>
    transport.call('update-catalog.createProduct', {
      title: 'Plugin',
      download_access,
      bundle_items,
    });

  /** A published version with one file for every plan, and one more per plan in `plans`. */
  async function release(productId: number, plans: number[] = []) {
    const version = await transport.call('update-catalog.createVersion', {
      product_id: productId,
      version: '2.1.0',
    });
    const add = (plan_id: number | null) =>
      transport.call('update-catalog.addFile', {
        version_id: version.id,
        filename: plan_id === null ? 'plugin.zip' : `plugin-plan-${plan_id}.zip`,
        plan_id,
        size: 4096,
        sha256: 'c'.repeat(64),
        content_type: 'application/zip',
        object_key: `packages/${version.id}/${plan_id ?? 'all'}.zip`,
      });
    const file = await add(null);
    for (const plan of plans) await add(plan);
    return { version, file };
  }

  const authorize = (request: Partial<AuthorizeDownloadRequest> & { product_id: number }) => {
    clock.advance(1000);
    return transport.call('download.authorize', {
      license_key: null,
      identifier: null,
      ip: IP,
      ...request,
    });
  };

  /** The error code a refused download gets, or 'served'. */
  const outcome = (request: Partial<AuthorizeDownloadRequest> & { product_id: number }) =>
    authorize(request).then(
      () => 'served',
      (error: { code: string; status: number }) => `${error.code} (${error.status})`,
    );

  const log = (query: Partial<DownloadLogRequest> = {}) =>
    transport.call('download.listLog', query);

  /** The daily counts of every product, or of one, for the days around the clock's. */
  const dailyCounts = (product_id: number | null = null) =>
    transport.call('download.dailyCounts', { product_id, from: '2026-02-28', to: '2026-03-02' });

  return {
    clock,
    transport,
    handlers,
    tickets,
    removed,
    missing,
    broken,
    product,
    release,
    authorize,
    outcome,
    log,
    dailyCounts,
  };
}

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

describe('spec 4.5: refusals are listed under Refused Downloads in the Download Log, with their reason', () => {
  test('a refused download is answered without waiting for its entry, which a read of the log then finds', async () => {
    const store = memoryDownloadLog();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const writes: Array<Array<string | null>> = [];
    const recordRefusals = store.recordRefusals.bind(store);
    store.recordRefusals = async (entries) => {
      await held;
      writes.push(entries.map((entry) => entry.license_key));
      return recordRefusals(entries);
    };
    const { product, outcome, log, transport } = downloads([], store);
    const p = await product('license_key');
    expect(await outcome({ product_id: p.id })).toBe('LICENSE_INVALID (403)');
    expect(await outcome({ product_id: p.id, license_key: 'NONE' })).toBe('LICENSE_INVALID (403)');
    // A refusal of the gateway itself, reported: taken for the log without waiting either.
    expect(
      await transport.call('download.logRefusal', {
        entry_id: null,
        product_id: p.id,
        license_key: 'LIMITED',
        identifier: null,
        ip: IP,
        reason: 'RATE_LIMITED',
      }),
    ).toEqual({ logged: true });
    expect(writes).toEqual([]);
    release();
    const entries = (await log({ product_id: p.id, refused: true })).entries;
    expect(entries.map((e) => [e.license_key, e.reason])).toEqual([
      ['LIMITED', 'RATE_LIMITED'],
      ['NONE', 'LICENSE_INVALID'],
      [null, 'LICENSE_INVALID'],
    ]);
    // All in one write.
    expect(writes).toEqual([[null, 'NONE', 'LIMITED']]);
  });

  test('every refusal is logged with its error code, served downloads too, newest first', async () => {
    const { product, release, outcome, log } = downloads([
      { key: 'KEY', product_id: 1, plan_id: 7, activated: ['here.example'] },
    ]);
    const p = await product('activated_identifier');
    const { version, file } = await release(p.id);
    await outcome({ product_id: p.id, license_key: 'WRONG' });
    await outcome({ product_id: p.id, license_key: 'KEY' });
    await outcome({ product_id: p.id, license_key: 'KEY', identifier: 'nowhere.example' });
    await outcome({ product_id: p.id, license_key: 'KEY', identifier: 'here.example' });
    await outcome({ product_id: 987654, license_key: 'KEY' });

    const all = await log({ product_id: p.id });
    expect(all.total).toBe(4);
    expect(all.entries.map((e) => [e.outcome, e.reason])).toEqual([
      ['served', null],
      ['refused', 'ACTIVATION_NOT_FOUND'],
      ['refused', 'ACTIVATION_REQUIRED'],
      ['refused', 'LICENSE_INVALID'],
    ]);
    expect(all.entries[0]).toEqual({
      id: expect.any(String),
      // The fourth request; requests come a second apart.
      at: '2026-03-01T09:00:04.000Z',
      product_id: p.id,
      license_key: 'KEY',
      identifier: 'here.example',
      ip: IP,
      outcome: 'served',
      reason: null,
      file_id: file.id,
      version: version.version,
    });
    expect(all.entries[3]).toMatchObject({ license_key: 'WRONG', file_id: null, version: null });

    expect((await log({ product_id: p.id, refused: true })).entries.map((e) => e.reason)).toEqual([
      'ACTIVATION_NOT_FOUND',
      'ACTIVATION_REQUIRED',
      'LICENSE_INVALID',
    ]);
    expect((await log({ product_id: p.id, refused: false })).total).toBe(1);
    expect(await log({ product_id: p.id, per_page: 3, page: 2 })).toMatchObject({
      page: 2,
      per_page: 3,
      total: 4,
      entries: [expect.objectContaining({ reason: 'LICENSE_INVALID' })],
    });
    expect((await log({ refused: true })).entries[0]).toMatchObject({
      product_id: 987654,
      reason: 'NOT_FOUND',
    });
  });

  test('a served download whose bytes did not reach the client becomes a refusal with that code, once', async () => {
    const { transport, product, release, authorize, log } = downloads();
    const p = await product('public');
    const { file } = await release(p.id);
    const { log_id } = await authorize({ product_id: p.id });
    const report = {
      entry_id: log_id,
      product_id: p.id,
      license_key: null,
      identifier: null,
      ip: IP,
      reason: 'RANGE_NOT_SATISFIABLE',
    };
    expect(await transport.call('download.logRefusal', report)).toEqual({ logged: true });
    expect(await transport.call('download.logRefusal', report)).toEqual({ logged: false });
    expect((await log()).entries).toEqual([
      expect.objectContaining({
        id: log_id,
        outcome: 'refused',
        reason: 'RANGE_NOT_SATISFIABLE',
        file_id: file.id,
        version: '2.1.0',
      }),
    ]);
  });

  test('refusals of the gateway itself are logged as sent; an empty value is none', async () => {
    const { transport, log } = downloads();
    const logged = await transport.call('download.logRefusal', {
      entry_id: null,
      product_id: null,
      license_key: ' ',
      identifier: '',
      ip: IP,
      reason: 'RATE_LIMITED',
    });
    expect(logged).toEqual({ logged: true });
    expect((await log({ refused: true })).entries).toEqual([
      expect.objectContaining({
        product_id: null,
        license_key: ' ',
        identifier: null,
        reason: 'RATE_LIMITED',
      }),
    ]);
  });
});

describe('package objects', () => {
  test('an upload link names a new object key under packages/ and is good for that key only', async () => {
    const { transport, tickets } = downloads();
    const prepared = await transport.call('download.prepareUpload', {
      filename: '../Plügin 2.zip',
    });
    expect(prepared.object_key).toMatch(/^packages\/[0-9a-f-]{36}\/Plu_gin_2\.zip$/);
    const ticket = prepared.upload_url.slice(`${BASE_URL}/uploads/`.length);
    expect(tickets.verify(ticket, 'upload')).toMatchObject({ key: prepared.object_key });
  });

  test('deleting an object removes it from storage', async () => {
    const { transport, removed } = downloads();
    expect(
      await transport.call('download.deleteObject', { object_key: 'packages/x/a.zip' }),
    ).toEqual({ object_key: 'packages/x/a.zip', deleted: true });
    expect(removed).toEqual(['packages/x/a.zip']);
  });
});

describe('RPC deadlines: a call whose caller stopped waiting writes nothing', () => {
  test('no log entry, no upload link, no removal', async () => {
    const { clock, handlers, removed, product, release, log } = downloads();
    const p = await product('public');
    await release(p.id);
    const gone = (method: MethodName) =>
      callContext({ method, clock, deadline: clock().getTime() - 1 });
    for (const late of [
      () =>
        handlers['download.authorize'](
          {
            product_id: p.id,
            license_key: null,
            identifier: null,
            ip: IP,
            delivery: 'relay',
            method: 'GET',
          },
          gone('download.authorize'),
        ),
      () =>
        handlers['download.authorize'](
          {
            product_id: 987654,
            license_key: null,
            identifier: null,
            ip: IP,
            delivery: 'relay',
            method: 'GET',
          },
          gone('download.authorize'),
        ),
      () =>
        handlers['download.logRefusal'](
          {
            entry_id: null,
            product_id: p.id,
            license_key: null,
            identifier: null,
            ip: IP,
            reason: 'RATE_LIMITED',
          },
          gone('download.logRefusal'),
        ),
      () =>
        handlers['download.prepareUpload']({ filename: 'a.zip' }, gone('download.prepareUpload')),
      () =>
        handlers['download.deleteObject'](
          { object_key: 'packages/x/a.zip' },
          gone('download.deleteObject'),
        ),
    ]) {
      await expect(late()).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
    }
    expect(await log()).toMatchObject({ entries: [], total: 0 });
    expect(removed).toEqual([]);
  });
});

describe('download.served and download.refused: each entry of the download log, once written', () => {
  /** The data of the events of `type` so far, each checked against its schema. */
  const published = <T extends DomainEventType>(transport: FakeTransport, type: T) =>
    publishedData(transport.domainEvents, type);

  test('a served download publishes download.served with its file and version, at the time of its entry', async () => {
    const { transport, product, release, authorize, log } = downloads([
      { key: 'KEY', product_id: 1, plan_id: 7, activated: ['example.com'] },
    ]);
    const p = await product('activated_identifier');
    await release(p.id);
    await authorize({ product_id: p.id, license_key: 'KEY', identifier: 'example.com' });
    expect(published(transport, 'download.served')).toEqual([
      {
        license_key: 'KEY',
        product_id: p.id,
        identifier: 'example.com',
        ip: IP,
        version: '2.1.0',
        filename: 'plugin.zip',
      },
    ]);
    const [entry] = (await log()).entries;
    expect(transport.domainEventsOf('download.served')[0]?.timestamp).toBe(entry?.at);
    expect(published(transport, 'download.refused')).toEqual([]);
  });

  test('a refused download publishes download.refused with its error code once its batch is written, not before', async () => {
    const store = memoryDownloadLog();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const recordRefusals = store.recordRefusals.bind(store);
    store.recordRefusals = async (entries) => {
      await held;
      return recordRefusals(entries);
    };
    const { transport, product, outcome, log } = downloads([], store);
    const p = await product('license_key');
    expect(await outcome({ product_id: p.id, license_key: 'NONE', identifier: 'a.example' })).toBe(
      'LICENSE_INVALID (403)',
    );
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(published(transport, 'download.refused')).toEqual([]);
    release();
    await log();
    expect(published(transport, 'download.refused')).toEqual([
      {
        license_key: 'NONE',
        product_id: p.id,
        identifier: 'a.example',
        ip: IP,
        reason: 'LICENSE_INVALID',
      },
    ]);
  });

  test('a refusal the gateway reports publishes download.refused with the request as sent', async () => {
    const { transport, log } = downloads();
    await transport.call('download.logRefusal', {
      entry_id: null,
      product_id: null,
      license_key: 'LIMITED',
      identifier: null,
      ip: IP,
      reason: 'RATE_LIMITED',
    });
    await log();
    expect(published(transport, 'download.refused')).toEqual([
      {
        license_key: 'LIMITED',
        product_id: null,
        identifier: null,
        ip: IP,
        reason: 'RATE_LIMITED',
      },
    ]);
  });

  test('a served download whose bytes did not reach the client publishes download.refused too, once', async () => {
    const { transport, product, release, authorize, clock } = downloads();
    const p = await product('public');
    await release(p.id);
    const { log_id } = await authorize({ product_id: p.id });
    clock.advance(5000);
    const report = {
      entry_id: log_id,
      product_id: p.id,
      license_key: null,
      identifier: null,
      ip: IP,
      reason: 'RANGE_NOT_SATISFIABLE',
    };
    await transport.call('download.logRefusal', report);
    await transport.call('download.logRefusal', report);
    expect(transport.domainEvents.map((event) => event.type)).toEqual([
      'version.published',
      'download.served',
      'download.refused',
    ]);
    expect(published(transport, 'download.refused')).toEqual([
      {
        license_key: null,
        product_id: p.id,
        identifier: null,
        ip: IP,
        reason: 'RANGE_NOT_SATISFIABLE',
      },
    ]);
    // At the time it became a refusal.
    expect(transport.domainEventsOf('download.refused')[0]?.timestamp).toBe(clock().toISOString());
  });

  test('an entry the log could not write publishes nothing', async () => {
    const store = memoryDownloadLog();
    const { transport, product, release, authorize, outcome, log } = downloads([], store);
    const p = await product('public');
    await release(p.id);
    await authorize({ product_id: p.id });
    store.recordServed = async () => {
      throw new Error('database unreachable');
    };
    store.recordRefusals = async () => {
      throw new Error('database unreachable');
    };
    // The download is still served, and the refusal still answered: the log is best-effort.
    expect((await authorize({ product_id: p.id })).log_id).toBeNull();
    expect(await outcome({ product_id: 987654 })).toBe('NOT_FOUND (404)');
    await log();
    expect(published(transport, 'download.served')).toHaveLength(1);
    expect(published(transport, 'download.refused')).toEqual([]);
  });
});

describe("the overview's daily counts: each entry of the download log, counted on its UTC day", () => {
  const licenses = [{ key: 'KEY', product_id: 1, plan_id: 7, activated: ['here.example'] }];
  const day = (date: string, served: number, refused: number) => ({
    day: date,
    downloads_served: served,
    downloads_refused: refused,
  });

  test('downloads served and refused of a day equal its served and refused entries, per product and of all', async () => {
    const { transport, product, release, outcome, authorize, log, dailyCounts } =
      downloads(licenses);
    const p = await product('activated_identifier');
    const other = await product('public');
    await release(p.id);
    await release(other.id);
    await outcome({ product_id: p.id, license_key: 'KEY', identifier: 'here.example' });
    await outcome({ product_id: p.id, license_key: 'KEY', identifier: 'here.example' });
    await outcome({ product_id: p.id, license_key: 'KEY' });
    await outcome({ product_id: p.id, license_key: 'WRONG' });
    await outcome({ product_id: other.id });
    // A refusal the gateway made itself, of a path with no valid product id: every product's.
    await transport.call('download.logRefusal', {
      entry_id: null,
      product_id: null,
      license_key: null,
      identifier: null,
      ip: IP,
      reason: 'INVALID_REQUEST',
    });
    // Served, then its bytes never reached the client: refused, as the log shows it.
    const { log_id } = await authorize({ product_id: other.id });
    await transport.call('download.logRefusal', {
      entry_id: log_id,
      product_id: other.id,
      license_key: null,
      identifier: null,
      ip: IP,
      reason: 'RANGE_NOT_SATISFIABLE',
    });

    expect(await dailyCounts(p.id)).toEqual({ days: [day('2026-03-01', 2, 2)] });
    expect(await dailyCounts(other.id)).toEqual({ days: [day('2026-03-01', 1, 1)] });
    expect(await dailyCounts()).toEqual({ days: [day('2026-03-01', 3, 4)] });
    const entries = (await log({ per_page: 100 })).entries;
    expect(entries.filter((e) => e.outcome === 'served')).toHaveLength(3);
    expect(entries.filter((e) => e.outcome === 'refused')).toHaveLength(4);
  });

  test('days begin at 00:00 UTC; a served download refused after midnight stays on the day it was served', async () => {
    const { transport, clock, product, release, authorize, dailyCounts } = downloads();
    const p = await product('public');
    await release(p.id);
    // The requests of `authorize` come a second after the clock's time: 23:59:59.
    clock.advance(Date.parse('2026-03-01T23:59:58.000Z') - clock().getTime());
    const { log_id } = await authorize({ product_id: p.id });
    await authorize({ product_id: p.id });
    await transport.call('download.logRefusal', {
      entry_id: log_id,
      product_id: p.id,
      license_key: null,
      identifier: null,
      ip: IP,
      reason: 'INTERNAL_ERROR',
    });
    expect(await dailyCounts(p.id)).toEqual({
      days: [day('2026-03-01', 0, 1), day('2026-03-02', 1, 0)],
    });
  });
});
