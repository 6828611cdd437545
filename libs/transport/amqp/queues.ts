import type * as amqp from 'amqplib';
import { ConfigError, type Config } from '../../config/index.js';
import type { DomainEventConsumer, ServiceName } from '../../contracts/index.js';
import { consumedDomainEvents, domainEventConsumers, serviceNames } from '../../contracts/index.js';

/** Built-in topic exchange: always present, so events need no topology of their own. */
export const EVENT_EXCHANGE = 'amq.topic';
/** A request queue nobody has consumed for this long is removed by the broker. */
const QUEUE_EXPIRES_MS = 30 * 60 * 1000;
/**
 * How often a quorum queue hands a domain event out before it drops it. RabbitMQ 4 drops one
 * after 20 deliveries unless told otherwise, while an event whose handler fails (its database is
 * away) is handed out again every second until it is taken: so the limit is as high as it goes,
 * read alike by every version (RabbitMQ 4's "unlimited", -1, drops it at once on 3.x).
 */
const DOMAIN_EVENT_DELIVERY_LIMIT = 2 ** 31 - 1;

/** The type of the system's durable queues (AMQP_QUEUE_TYPE). */
export type QueueType = Config['AMQP_QUEUE_TYPE'];

/** What names and declares the queues of one system on a broker. */
export interface QueueSettings {
  /** Namespace of queue names and event routing keys, so systems can share one broker. */
  prefix: string;
  /** The type of the durable queues it declares: every process of a system uses the same. */
  queueType: QueueType;
}

/**
 * Every declaration of a service's request queue (the broker refuses one whose arguments
 * differ): of the system's queue type, removed after a while without consumers.
 */
export function rpcQueueOptions(type: QueueType): amqp.Options.AssertQueue {
  return { durable: true, arguments: { 'x-expires': QUEUE_EXPIRES_MS, 'x-queue-type': type } };
}

/**
 * Every declaration of a domain event consumer's queue, by publishers and consumers alike:
 * durable, of the system's queue type, and without an expiry, so the events of a consumer that
 * is down for a while wait for it.
 */
function domainEventQueueOptions(type: QueueType): amqp.Options.AssertQueue {
  const limit = type === 'quorum' ? { 'x-delivery-limit': DOMAIN_EVENT_DELIVERY_LIMIT } : {};
  return { durable: true, arguments: { 'x-queue-type': type, ...limit } };
}

export const rpcQueueName = (prefix: string, service: ServiceName) => `${prefix}.rpc.${service}`;
const domainEventQueueName = (prefix: string, consumer: DomainEventConsumer) =>
  `${prefix}.events.${consumer}`;

/**
 * Every durable queue of a system of `prefix` (the RPC requests of each service, the domain
 * events of each consumer), with the options every declaration of it gives.
 */
export function durableQueues(
  prefix: string,
  type: QueueType,
): Array<{ queue: string; options: amqp.Options.AssertQueue }> {
  return [
    ...serviceNames.map((service) => ({
      queue: rpcQueueName(prefix, service),
      options: rpcQueueOptions(type),
    })),
    ...domainEventConsumers.map((consumer) => ({
      queue: domainEventQueueName(prefix, consumer),
      options: domainEventQueueOptions(type),
    })),
  ];
}

/**
 * What a refused declaration means when the queue exists with another type: RabbitMQ refuses to
 * declare a queue again with other arguments (406, "inequivalent arg 'x-queue-type'") and never
 * changes a queue's type, so a system whose AMQP_QUEUE_TYPE differs from its queues' cannot run
 * until one of them changes. Undefined for any other refusal.
 */
export function queueTypeMismatch(
  error: unknown,
  queue: string,
  wanted: QueueType,
): ConfigError | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (!message.includes("inequivalent arg 'x-queue-type'")) return undefined;
  // "current is 'quorum'", "current is the value 'quorum' of type 'longstr'", or "current is
  // none": a queue declared without a type is a classic one.
  const current = /current is (?:the value )?'([a-z]+)'/.exec(message)?.[1] ?? 'classic';
  return new ConfigError(
    `AMQP_QUEUE_TYPE is ${wanted}, but the queue ${queue} is a ${current} queue, and RabbitMQ ` +
      `cannot change the type of a queue: set AMQP_QUEUE_TYPE=${current}, or move the queues to ` +
      `${wanted} as docs/operations.md says ("Changing the queue type").`,
  );
}

/** Declares a queue of this system; one of another type than AMQP_QUEUE_TYPE is said so. */
export async function declareQueue(
  channel: amqp.Channel,
  queue: string,
  options: amqp.Options.AssertQueue,
  wanted: QueueType,
): Promise<void> {
  try {
    await channel.assertQueue(queue, options);
  } catch (error) {
    throw queueTypeMismatch(error, queue, wanted) ?? error;
  }
}

/**
 * The routing keys a consumer's queue is bound to: every domain event of the system, or each of
 * the types it takes (libs/contracts/events/domain-events.ts `consumedDomainEvents`).
 */
export function domainEventBindings(prefix: string, consumer: DomainEventConsumer): string[] {
  const types = consumedDomainEvents[consumer];
  return types === 'every'
    ? [`${prefix}.domain.#`]
    : types.map((type) => `${prefix}.domain.${type}`);
}

/** Declares a domain event consumer's queue, bound to the domain events it takes. */
export async function declareDomainEventQueue(
  channel: amqp.Channel,
  settings: QueueSettings,
  consumer: DomainEventConsumer,
): Promise<string> {
  const { prefix, queueType } = settings;
  const queue = domainEventQueueName(prefix, consumer);
  await declareQueue(channel, queue, domainEventQueueOptions(queueType), queueType);
  for (const key of domainEventBindings(prefix, consumer)) {
    await channel.bindQueue(queue, EVENT_EXCHANGE, key);
  }
  return queue;
}
