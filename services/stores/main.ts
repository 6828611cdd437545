// First: tracing must be registered before the libraries it traces are loaded.
import '../../libs/observability/tracing.js';
import { connectDatabase, databaseCheck } from '../../libs/database/index.js';
import { runProcess } from '../../libs/process/index.js';
import { createTransport, messageBusCheck } from '../../libs/transport/index.js';
import { storesFromConfig, storesProcess } from './service.js';
import { storePortsFromConfig } from './store-ports.js';

runProcess(storesProcess, async (config, logger, { readiness }) => {
  const db = await connectDatabase(config.MONGODB_URL, config.MONGODB_DB_PREFIX, 'stores');
  const transport = await createTransport(config, logger, 'stores');
  readiness.add(databaseCheck(db), messageBusCheck(transport, config));
  const service = await storesFromConfig(
    config,
    { db, transport, logger },
    storePortsFromConfig(config, transport, logger),
  );
  return async () => {
    await transport.close();
    await service.stop();
    await db.close();
  };
});
