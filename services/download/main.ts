// First: tracing must be registered before the libraries it traces are loaded.
import '../../libs/observability/tracing.js';
import { embeddedStorageDirectory } from '../../libs/config/index.js';
import { connectDatabase, databaseCheck } from '../../libs/database/index.js';
import { runProcess } from '../../libs/process/index.js';
import { createTransport, messageBusCheck } from '../../libs/transport/index.js';
import { downloadFromConfig, downloadProcess } from './service.js';

runProcess(downloadProcess, async (config, logger, { readiness }) => {
  if (!config.S3_ENDPOINT) {
    // Without S3_ENDPOINT a local S3-compatible server runs in this process. Its files are this
    // replica's alone, which is fine for one replica and wrong for several.
    logger.warn(
      { directory: embeddedStorageDirectory(config) ?? 'a temporary directory' },
      'S3_ENDPOINT is unset: package files are kept in an embedded store in this process; ' +
        'other download replicas will not share it',
    );
  }
  if (!config.DOWNLOAD_SERVICE_URL && ['0.0.0.0', '::'].includes(config.HOST)) {
    logger.warn('DOWNLOAD_SERVICE_URL is unset: other hosts cannot reach this service');
  }
  const db = await connectDatabase(config.MONGODB_URL, config.MONGODB_DB_PREFIX, 'download');
  const transport = await createTransport(config, logger, 'download');
  readiness.add(databaseCheck(db), messageBusCheck(transport, config));
  const service = await downloadFromConfig(config, { db, transport, logger, readiness });
  return async () => {
    await transport.close();
    await service.stop();
    await db.close();
  };
});
