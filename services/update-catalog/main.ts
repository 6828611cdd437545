// First: tracing must be registered before the libraries it traces are loaded.
import '../../libs/observability/tracing.js';
import { connectDatabase, databaseCheck } from '../../libs/database/index.js';
import { runProcess } from '../../libs/process/index.js';
import { createTransport, messageBusCheck } from '../../libs/transport/index.js';
import { updateCatalogFromConfig, updateCatalogProcess } from './service.js';

runProcess(updateCatalogProcess, async (config, logger, { readiness }) => {
  const db = await connectDatabase(config.MONGODB_URL, config.MONGODB_DB_PREFIX, 'update-catalog');
  const transport = await createTransport(config, logger, 'update-catalog');
  readiness.add(databaseCheck(db), messageBusCheck(transport, config));
  await updateCatalogFromConfig(config, { db, transport, logger });
  return async () => {
    await transport.close();
    await db.close();
  };
});
