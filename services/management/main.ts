// First: tracing must be registered before the libraries it traces are loaded.
import '../../libs/observability/tracing.js';
import { trustProxySetting } from '../../libs/config/index.js';
import { listen } from '../../libs/http/index.js';
import { requireSetting, runProcess } from '../../libs/process/index.js';
import { createTransport, messageBusCheck } from '../../libs/transport/index.js';
import { createManagementApp, managementListenOptions } from './app.js';

runProcess('management', async (config, logger, { readiness }) => {
  if (config.ADMIN_TOKENS.length === 0) requireSetting(undefined, 'ADMIN_TOKENS');
  const transport = await createTransport(config, logger, 'management');
  readiness.add(messageBusCheck(transport, config));
  const app = createManagementApp({
    transport,
    logger,
    adminTokens: config.ADMIN_TOKENS,
    trustProxy: trustProxySetting(config.TRUST_PROXY),
    maxUploadBytes: config.MAX_UPLOAD_BYTES,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    readiness,
  });
  const server = await listen(
    app,
    config.ADMIN_PORT,
    config.HOST,
    managementListenOptions(config.HTTP_REQUEST_TIMEOUT_MS),
  );
  logger.info({ url: server.url }, 'management API listening');
  return async () => {
    await server.close();
    await transport.close();
  };
});
