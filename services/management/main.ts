// First: tracing must be registered before the libraries it traces are loaded.
import '../../libs/observability/tracing.js';
import { connectDatabase, databaseCheck } from '../../libs/database/index.js';
import { runProcess } from '../../libs/process/index.js';
import { createTransport, messageBusCheck } from '../../libs/transport/index.js';
import { managementFromConfig, managementProcess } from './service.js';

runProcess(managementProcess, async (config, logger, { readiness }) => {
  const db = await connectDatabase(config.MONGODB_URL, config.MONGODB_DB_PREFIX, 'management');
  readiness.add(databaseCheck(db));
  const transport = await createTransport(config, logger, 'management');
  readiness.add(messageBusCheck(transport, config));
  const management = await managementFromConfig(config, { db, transport, logger, readiness });
  logger.info({ url: management.url }, 'management API listening');
  return async () => {
    await management.stop();
    await transport.close();
    await db.close();
  };
});
