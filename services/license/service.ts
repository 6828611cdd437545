import type { Connection } from 'mongoose';
import { CatalogProducts } from '../../libs/cache/index.js';
import type { Logger } from '../../libs/logging/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { createLicenseHandlers } from './handlers.js';
import { openMongoStores } from './mongo-stores.js';
import type { ScheduleSettings } from './scheduled-tasks.js';
import { startScheduler } from './scheduler.js';

/**
 * The license service: owns plans, licenses, activations and rejected activation attempts, and
 * runs their scheduled tasks (spec 2.5 and 3.1). `stop` ends the scheduler; the caller closes the
 * connections it opened.
 */
export async function startLicenseService(deps: {
  db: Connection;
  transport: Transport;
  logger: Logger;
  productCacheTtlMs: number;
  schedule: ScheduleSettings;
}): Promise<{ stop(): Promise<void> }> {
  const stores = await openMongoStores(deps.db);
  const products = new CatalogProducts(deps.transport, deps.productCacheTtlMs);
  await products.start();
  await deps.transport.serve(
    'license',
    createLicenseHandlers({
      stores,
      products,
      clock: () => new Date(),
      schedule: deps.schedule,
    }),
  );
  const scheduler = await startScheduler({
    db: deps.db,
    stores,
    logger: deps.logger,
    settings: deps.schedule,
  });
  deps.logger.info('license service ready');
  return scheduler;
}
