/**
 * The update-catalog handlers on in-memory stores, with a fake license service and a clock that
 * stands still, for the tests of the update-catalog service's handlers.
 */
import type { CreateProductRequest, EventName, EventOf } from '../../libs/contracts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { domainEventPublisher } from '../../libs/transport/domain-events.js';
import { publishedCatalogEvents } from '../../services/update-catalog/events.js';
import { createUpdateCatalogHandlers } from '../../services/update-catalog/handlers.js';
import { ReleaseCatalog } from '../../services/update-catalog/release-catalog.js';
import type { CatalogStores } from '../../services/update-catalog/stores.js';
import {
  fakeLicenseService,
  fixedClock,
  type FakeLicense,
  type TestClock,
} from './fake-services.js';
import { FakeTransport } from '../../bench/support/fake-transport.js';
import { memoryCatalogStores } from './memory-catalog-stores.js';

/** What a test says of a package file; the rest is the same for every file. */
export interface FileFields {
  plan_id?: number | null;
  include_in_updates?: boolean;
  size?: number;
}

export const DOWNLOADS = 'https://shop.example/api/index.php/v1/licensing/downloads';
export const MINUTE = 60_000;
/**
 * How long the releases of a product are kept (PRODUCT_CACHE_TTL_MS): longer than any test moves
 * its clock, so only the changes the handlers announce refresh what they keep.
 */
export const TTL_MS = 24 * 60 * MINUTE;

/**
 * The broker between replicas: what any replica publishes reaches every subscriber, the
 * publisher included, when the test delivers it (and never on its own).
 */
export class EventBus {
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
export class ReplicaTransport extends FakeTransport {
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
export function catalog(
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
