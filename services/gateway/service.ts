import {
  trustProxySetting,
  type Config,
  type ConfigVariable,
  type SigningKeys,
} from '../../libs/config/index.js';
import { listen, Signer } from '../../libs/http/index.js';
import type { Logger } from '../../libs/logging/index.js';
import type { ReadinessProbe } from '../../libs/observability/index.js';
import { messageBusSettings, type ProcessSpec } from '../../libs/process/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { createGatewayApp } from './app.js';
import { rateLimitsFromConfig } from './rate-limits/rate-limits.js';

/** The settings the gateway reads (README: Configuration). */
export const gatewaySettings = [
  'HOST',
  'PORT',
  'PUBLIC_URL',
  'TRUST_PROXY',
  'HTTP_REQUEST_TIMEOUT_MS',
  'REDIS_URL',
  'REDIS_PREFIX',
  'RATE_LIMIT_PER_IP_PER_MINUTE',
  'RATE_LIMIT_ACTIVATIONS_PER_KEY_PER_HOUR',
  'RATE_LIMIT_UPDATES_PER_MINUTE',
  'RATE_LIMIT_DOWNLOADS_PER_MINUTE',
  'DOWNLOAD_DELIVERY',
  'STORE_NAME',
  'STORE_URL',
  'RENEW_URL',
  'STORE_LOGO_FILE',
  'SIGNING_KEY',
  'SIGNING_KEY_FILE',
  'SIGNATURE_TTL_SECONDS',
  'LICENSE_FILE_MAX_TTL_SECONDS',
] as const satisfies readonly ConfigVariable[];

/**
 * The gateway as its own process (main.ts), which reaches RabbitMQ itself: the settings it reads,
 * and those it cannot start without.
 */
export const gatewayProcess = {
  name: 'gateway',
  settings: [...messageBusSettings, ...gatewaySettings],
  // It signs answers and license files: a key of its own would not be the one clients know.
  required: ['AMQP_URL', 'SIGNING_KEY'],
} as const satisfies ProcessSpec;

/**
 * The public gateway listening on PORT, with its rate limits (their Redis added to `readiness`)
 * and its signing key. `stop` closes the port, then the rate limits' Redis; the caller closes
 * the transport.
 */
export async function gatewayFromConfig(
  config: Pick<Config, (typeof gatewaySettings)[number]> & { SIGNING_KEY: SigningKeys },
  deps: { transport: Transport; logger: Logger; readiness: ReadinessProbe },
): Promise<{ url: string; stop(): Promise<void> }> {
  const signer = await Signer.fromKeys(config.SIGNING_KEY);
  const rateLimits = rateLimitsFromConfig(config, deps.logger);
  deps.readiness.add(...rateLimits.checks);
  // Download URLs name PUBLIC_URL, or else the gateway's own address (known once listening).
  let ownUrl = '';
  const app = createGatewayApp({
    transport: deps.transport,
    rateLimits: rateLimits.limits,
    publicUrl: () => config.PUBLIC_URL ?? ownUrl,
    logger: deps.logger,
    trustProxy: trustProxySetting(config.TRUST_PROXY),
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    readiness: deps.readiness,
    signing: { signer, ttlSeconds: config.SIGNATURE_TTL_SECONDS },
    licenseFileMaxTtlSeconds: config.LICENSE_FILE_MAX_TTL_SECONDS,
    downloadDelivery: config.DOWNLOAD_DELIVERY,
    portal: {
      store_name: config.STORE_NAME === '' ? null : config.STORE_NAME,
      store_url: config.STORE_URL ?? null,
      renew_url: config.RENEW_URL ?? config.STORE_URL ?? null,
      logo: config.STORE_LOGO_FILE?.dataUrl ?? null,
    },
  });
  try {
    const server = await listen(app, config.PORT, config.HOST, deps.logger, {
      requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    });
    ownUrl = server.url;
    return {
      url: server.url,
      stop: async () => {
        await server.close();
        await rateLimits.close();
      },
    };
  } catch (error) {
    await rateLimits.close();
    throw error;
  }
}
