/**
 * The download handlers on an in-memory download log, with the update catalog's handlers on
 * in-memory stores, a fake license service and a clock that stands still, for the tests of the
 * download service's handlers.
 */
import { Readable } from 'node:stream';
import { CatalogProducts } from '../../libs/cache/index.js';
import type {
  AuthorizeDownloadRequest,
  CallContext,
  DownloadAccess,
  DownloadLogRequest,
} from '../../libs/contracts/index.js';
import { DailyCounter } from '../../libs/daily-counts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { domainEventPublisher } from '../../libs/transport/domain-events.js';
import { countedDownloadEvents, downloadMetrics } from '../../services/download/daily-counts.js';
import { publishedDownloadEvents } from '../../services/download/events.js';
import { createDownloadHandlers } from '../../services/download/handlers.js';
import { DownloadLogWriter } from '../../services/download/download-log/log.js';
import { TicketSigner } from '../../services/download/uploads/tickets.js';
import { publishedCatalogEvents } from '../../services/update-catalog/events.js';
import { createUpdateCatalogHandlers } from '../../services/update-catalog/handlers.js';
import { fakeLicenseService, fixedClock, type FakeLicense } from './fake-services.js';
import { FakeTransport } from '../../bench/support/fake-transport.js';
import { memoryCatalogStores } from './memory-catalog-stores.js';
import { memoryDailyCountStore } from './memory-daily-counts.js';
import { memoryDownloadLog } from './memory-download-log.js';

export const BASE_URL = 'http://download.internal:9000';
export const STORE_URL = 'http://store.internal:9000/bucket';
export const STORED_AT = new Date('2026-02-01T08:00:00.000Z');
export const SIGNING_KEY = 'handler-test-signing-key';
export const IP = '203.0.113.5';

/** The handlers, on a fresh log and catalog at 2026-03-01 09:00 UTC, and the licenses the fake knows. */
export function downloads(licenses: FakeLicense[] = [], downloadLog = memoryDownloadLog()) {
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
    async read(key: string, start: number, length: number) {
      return Readable.from([Buffer.alloc(length, key).subarray(start)]);
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
    sparkleKey: undefined,
    maxSignBytes: 4096,
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
