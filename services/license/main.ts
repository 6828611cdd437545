// First: tracing must be registered before the libraries it traces are loaded.
import '../../libs/observability/tracing.js';
import { connectDatabase, databaseCheck } from '../../libs/database/index.js';
import { runProcess } from '../../libs/process/index.js';
import { createTransport, messageBusCheck } from '../../libs/transport/index.js';
import { licenseFromConfig, licenseProcess } from './service.js';

runProcess(licenseProcess, async (config, logger, { readiness }) => {
  const db = await connectDatabase(config.MONGODB_URL, config.MONGODB_DB_PREFIX, 'license');
  const transport = await createTransport(config, logger, 'license');
  readiness.add(databaseCheck(db), messageBusCheck(transport, config));
  const service = await licenseFromConfig(config, { db, transport, logger });
  return async () => {
    await service.stop();
    await transport.close();
    await db.close();
  };
});
