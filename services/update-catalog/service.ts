import type { Connection } from 'mongoose';
import type { Config, ConfigVariable } from '../../libs/config/index.js';
import type { Logger } from '../../libs/logging/index.js';
import {
  databaseSettings,
  messageBusSettings,
  type ProcessSpec,
} from '../../libs/process/index.js';
import { domainEventPublisher } from '../../libs/transport/domain-events.js';
import type { Transport } from '../../libs/transport/index.js';
import { publishedCatalogEvents } from './events.js';
import { createUpdateCatalogHandlers } from './handlers.js';
import { openMongoCatalogStores } from './mongo-stores.js';
import { ReleaseCatalog } from './release-catalog.js';

/** The settings the update-catalog service reads (README: Configuration). */
export const updateCatalogSettings = [
  'PRODUCT_CACHE_TTL_MS',
] as const satisfies readonly ConfigVariable[];

/**
 * The update-catalog service as its own process (main.ts), which reaches RabbitMQ and its database
 * itself: the settings it reads, and those it cannot start without.
 */
export const updateCatalogProcess = {
  name: 'update-catalog',
  settings: [...messageBusSettings, ...databaseSettings, ...updateCatalogSettings],
  required: ['AMQP_URL', 'MONGODB_URL'],
} as const satisfies ProcessSpec;

/** The update-catalog service: owns products and bundles, versions and their package files. */
export async function updateCatalogFromConfig(
  config: Pick<Config, (typeof updateCatalogSettings)[number]>,
  deps: { db: Connection; transport: Transport; logger: Logger },
): Promise<void> {
  const stores = await openMongoCatalogStores(deps.db);
  const releases = new ReleaseCatalog(stores, { ttlMs: config.PRODUCT_CACHE_TTL_MS });
  // Each replica hears every change, its own included; subscribed before it answers anything.
  await deps.transport.subscribe('update-catalog.product-changed', ({ id }) =>
    releases.invalidate(id),
  );
  await deps.transport.serve(
    'update-catalog',
    createUpdateCatalogHandlers({
      stores,
      transport: deps.transport,
      // Domain events go out on the transport, durably (libs/contracts/events/domain-events.ts).
      events: publishedCatalogEvents(domainEventPublisher(deps.transport, deps.logger)),
      releases,
    }),
  );
  deps.logger.info('update-catalog service ready');
}
