import { connectDatabase } from '../../libs/database/index.js';
import { requireSetting, runProcess } from '../../libs/process/index.js';
import { createTransport } from '../../libs/transport/index.js';
import { startUpdateCatalogService } from './service.js';

runProcess('update-catalog', async (config, logger) => {
  const db = await connectDatabase(
    requireSetting(config.MONGODB_URL, 'MONGODB_URL'),
    config.MONGODB_DB_PREFIX,
    'update-catalog',
  );
  const transport = await createTransport(config, logger, 'update-catalog');
  await startUpdateCatalogService({ db, transport, logger });
  return async () => {
    await transport.close();
    await db.close();
  };
});
