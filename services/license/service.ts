import type { Connection } from 'mongoose';
import { Sequences } from '../../libs/database/index.js';
import type { Logger } from '../../libs/logging/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { licenseHandlers } from './handlers.js';
import { licenseModels } from './models.js';
import { ProductDirectory } from './product-directory.js';
import { startScheduler, type ScheduleSettings } from './scheduler.js';

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
  const models = licenseModels(deps.db);
  await Promise.all(Object.values(models).map((model) => model.init()));
  const products = new ProductDirectory(deps.transport, deps.productCacheTtlMs);
  await products.start();
  await deps.transport.serve(
    'license',
    licenseHandlers({ models, sequences: new Sequences(deps.db), products, startedAt: Date.now() }),
  );
  const scheduler = await startScheduler({
    db: deps.db,
    models,
    logger: deps.logger,
    settings: deps.schedule,
  });
  deps.logger.info('license service ready');
  return scheduler;
}
