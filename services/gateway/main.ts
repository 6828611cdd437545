// First: tracing must be registered before the libraries it traces are loaded.
import '../../libs/observability/tracing.js';
import { runProcess } from '../../libs/process/index.js';
import { createTransport, messageBusCheck } from '../../libs/transport/index.js';
import { gatewayFromConfig, gatewayProcess } from './service.js';

runProcess(gatewayProcess, async (config, logger, { readiness }) => {
  const transport = await createTransport(config, logger, 'gateway');
  readiness.add(messageBusCheck(transport, config));
  const gateway = await gatewayFromConfig(config, { transport, logger, readiness });
  logger.info({ url: gateway.url }, 'gateway listening');
  if (!config.PUBLIC_URL) {
    logger.warn({ url: gateway.url }, 'PUBLIC_URL is unset: download URLs name this address');
  }
  return async () => {
    await gateway.stop();
    await transport.close();
  };
});
