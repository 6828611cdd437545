import type { Connection } from 'mongoose';
import { Sequences } from '../../libs/database/index.js';
import type { Logger } from '../../libs/logging/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { catalogHandlers } from './handlers.js';
import { catalogModels } from './models.js';

/** The update-catalog service: owns products and bundles (versions and files come later). */
export async function startUpdateCatalogService(deps: {
  db: Connection;
  transport: Transport;
  logger: Logger;
}): Promise<void> {
  const models = catalogModels(deps.db);
  await Promise.all(Object.values(models).map((model) => model.init()));
  await deps.transport.serve(
    'update-catalog',
    catalogHandlers(models, new Sequences(deps.db), deps.transport, Date.now()),
  );
  deps.logger.info('update-catalog service ready');
}
