import { ConfigError, type Config } from '../config/index.js';
import { LicensingError } from '../contracts/index.js';
import type { Logger } from '../logging/index.js';
import { metrics, secondsSince, type DependencyCheck } from '../observability/index.js';
import { AmqpTransport } from './amqp.js';
import { CallTimeout } from './codec.js';
import { InProcessTransport, type InProcessBus } from './in-process.js';
import type { Transport } from './transport.js';

export type { Transport, CallOptions, ServedHandlers } from './transport.js';
export { AmqpTransport, durableQueues, type QueueType } from './amqp.js';
export { InProcessBus, InProcessTransport } from './in-process.js';

/**
 * Every call the transport makes, timed by method and outcome (ok, the error code, or timeout):
 * the client side of the RPC metrics.
 */
function measured(transport: Transport): Transport {
  return {
    call: async (method, request, options) => {
      const started = process.hrtime.bigint();
      let outcome = 'ok';
      try {
        return await transport.call(method, request, options);
      } catch (error) {
        if (error instanceof CallTimeout) outcome = 'timeout';
        else outcome = error instanceof LicensingError ? error.code : 'INTERNAL_ERROR';
        throw error;
      } finally {
        metrics.rpcCalls.observe({ method, outcome }, secondsSince(started));
      }
    },
    serve: (service, handlers) => transport.serve(service, handlers),
    publish: (event, payload) => transport.publish(event, payload),
    subscribe: (event, handler) => transport.subscribe(event, handler),
    publishDomainEvent: (event) => transport.publishDomainEvent(event),
    consumeDomainEvents: (consumer, handler) => transport.consumeDomainEvents(consumer, handler),
    checkConnection: () => transport.checkConnection(),
    close: () => transport.close(),
  };
}

/**
 * RabbitMQ when AMQP_URL is set; otherwise the in-process bus (embedded default), which only
 * works when every service runs in this process and shares `bus`.
 */
export async function createTransport(
  config: Pick<
    Config,
    'AMQP_URL' | 'AMQP_PREFIX' | 'AMQP_PREFETCH' | 'AMQP_QUEUE_TYPE' | 'RPC_TIMEOUT_MS'
  >,
  logger: Logger,
  role: string,
  bus?: InProcessBus,
): Promise<Transport> {
  if (config.AMQP_URL) {
    const transport = await AmqpTransport.connect({
      url: config.AMQP_URL,
      prefix: config.AMQP_PREFIX,
      prefetch: config.AMQP_PREFETCH,
      queueType: config.AMQP_QUEUE_TYPE,
      timeoutMs: config.RPC_TIMEOUT_MS,
      logger,
      connectionName: `${config.AMQP_PREFIX}:${role}:${process.pid}`,
    });
    return measured(transport);
  }
  if (!bus) {
    throw new ConfigError(
      'AMQP_URL is required when a service runs as its own process (the in-process bus only ' +
        'works for `npm start`, which runs every service in one process).',
    );
  }
  return measured(new InProcessTransport(bus, { timeoutMs: config.RPC_TIMEOUT_MS, logger }));
}
/** Readiness of the message bus a process calls and serves through. */
export function messageBusCheck(
  transport: Transport,
  config: Pick<Config, 'AMQP_URL'>,
): DependencyCheck {
  return {
    name: config.AMQP_URL ? 'rabbitmq' : 'message_bus',
    check: () => transport.checkConnection(),
  };
}

export {
  openBytePort,
  readBytePortJson,
  bytePortRefusal,
  BYTE_PORT_IDLE_TIMEOUT_MS,
} from './byte-port.js';
export { readObject, parseHead, type ObjectAnswer, type ObjectBody } from './object-read.js';
