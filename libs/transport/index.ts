import { ConfigError, type Config } from '../config/index.js';
import type { Logger } from '../logging/index.js';
import { AmqpTransport } from './amqp.js';
import { InProcessTransport, type InProcessBus } from './in-process.js';
import type { Transport } from './transport.js';

export type { Transport, CallOptions } from './transport.js';
export { AmqpTransport } from './amqp.js';
export { InProcessBus, InProcessTransport } from './in-process.js';

/**
 * RabbitMQ when AMQP_URL is set; otherwise the in-process bus (embedded default), which only
 * works when every service runs in this process and shares `bus`.
 */
export async function createTransport(
  config: Pick<Config, 'AMQP_URL' | 'AMQP_PREFIX' | 'AMQP_PREFETCH' | 'RPC_TIMEOUT_MS'>,
  logger: Logger,
  role: string,
  bus?: InProcessBus,
): Promise<Transport> {
  if (config.AMQP_URL) {
    return AmqpTransport.connect({
      url: config.AMQP_URL,
      prefix: config.AMQP_PREFIX,
      prefetch: config.AMQP_PREFETCH,
      timeoutMs: config.RPC_TIMEOUT_MS,
      logger,
      connectionName: `${config.AMQP_PREFIX}:${role}:${process.pid}`,
    });
  }
  if (!bus) {
    throw new ConfigError(
      'AMQP_URL is required when a service runs as its own process (the in-process bus only ' +
        'works for `npm start`, which runs every service in one process).',
    );
  }
  return new InProcessTransport(bus, { timeoutMs: config.RPC_TIMEOUT_MS, logger });
}
export {
  openBytePort,
  readBytePortJson,
  bytePortRefusal,
  BYTE_PORT_IDLE_TIMEOUT_MS,
} from './byte-port.js';
