// First: tracing must be registered before the libraries it traces are loaded.
import '../../libs/observability/tracing.js';
import { trustProxySetting } from '../../libs/config/index.js';
import { listen } from '../../libs/http/index.js';
import { runProcess } from '../../libs/process/index.js';
import { createTransport, messageBusCheck } from '../../libs/transport/index.js';
import { createGatewayApp } from './app.js';
import { rateLimitsFromConfig } from './rate-limits.js';

runProcess('gateway', async (config, logger, { readiness }) => {
  const transport = await createTransport(config, logger, 'gateway');
  const rateLimits = rateLimitsFromConfig(config, logger);
  readiness.add(messageBusCheck(transport, config), ...rateLimits.checks);
  // Download URLs name PUBLIC_URL, or else this gateway's own address (known once listening).
  let ownUrl = '';
  const app = createGatewayApp({
    rateLimits: rateLimits.limits,
    publicUrl: () => config.PUBLIC_URL ?? ownUrl,
    transport,
    logger,
    trustProxy: trustProxySetting(config.TRUST_PROXY),
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    readiness,
  });
  const server = await listen(app, config.PORT, config.HOST, {
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
  });
  ownUrl = server.url;
  logger.info({ url: server.url }, 'gateway listening');
  if (!config.PUBLIC_URL) {
    logger.warn({ url: server.url }, 'PUBLIC_URL is unset: download URLs name this address');
  }
  return async () => {
    await server.close();
    await transport.close();
    await rateLimits.close();
  };
});
