import type { Connection } from 'mongoose';
import type { Logger } from '../../libs/logging/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { createUpdateCatalogHandlers } from './handlers.js';
import { openMongoCatalogStores } from './mongo-stores.js';

/** The update-catalog service: owns products and bundles, versions and their package files. */
export async function startUpdateCatalogService(deps: {
  db: Connection;
  transport: Transport;
  logger: Logger;
}): Promise<void> {
  const stores = await openMongoCatalogStores(deps.db);
  await deps.transport.serve(
    'update-catalog',
    createUpdateCatalogHandlers({ stores, transport: deps.transport }),
  );
  deps.logger.info('update-catalog service ready');
}
