import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import * as amqp from 'amqplib';
import { ConfigError, type Config } from '../config/index.js';
import type {
  DomainEvent,
  DomainEventConsumer,
  DomainEventType,
  EventName,
  EventOf,
  MethodName,
  RequestOf,
  ResponseOf,
  ServiceName,
} from '../contracts/index.js';
import {
  domainEventConsumers,
  internalError,
  rpcMethods,
  serviceNames,
} from '../contracts/index.js';
import type { Logger } from '../logging/index.js';
import { metrics } from '../observability/index.js';
import { settled } from '../process/timeout.js';
import {
  decodeEvent,
  decodeReply,
  dispatch,
  encodeEvent,
  encodeRequest,
  servedTable,
  settleInHand,
  timeoutError,
  type HandlerTable,
} from './codec.js';
import {
  DOMAIN_EVENT_OUTBOX_LIMIT,
  DOMAIN_EVENT_RETRY_MS,
  DOMAIN_EVENT_STOP_MS,
  encodeDomainEvent,
  handleDomainEvent,
} from './domain-events.js';
import { sendWritesPerTick, socketOf } from './tick-writes.js';
import type { CallOptions, ServedHandlers, Transport } from './transport.js';

/** RabbitMQ's direct reply-to pseudo queue: replies come back without a queue per caller. */
const REPLY_TO = 'amq.rabbitmq.reply-to';
/** Built-in topic exchange: always present, so events need no topology of their own. */
const EVENT_EXCHANGE = 'amq.topic';
/** A request queue nobody has consumed for this long is removed by the broker. */
const QUEUE_EXPIRES_MS = 30 * 60 * 1000;
/** Domain events one process handles at once, per consumer. */
const DOMAIN_EVENT_PREFETCH = 32;
/** The wait before the first attempt to reconnect, doubled after each failed one... */
const RECONNECT_FIRST_MS = 100;
/** ...up to this (amqplib adds up to ±20 % of jitter within it). */
const RECONNECT_MAX_MS = 1000;
/**
 * How often a quorum queue hands a domain event out before it drops it. RabbitMQ 4 drops one
 * after 20 deliveries unless told otherwise, while an event whose handler fails (its database is
 * away) is handed out again every second until it is taken: so the limit is as high as it goes,
 * read alike by every version (RabbitMQ 4's "unlimited", -1, drops it at once on 3.x).
 */
const DOMAIN_EVENT_DELIVERY_LIMIT = 2 ** 31 - 1;

/** The type of the system's durable queues (AMQP_QUEUE_TYPE). */
export type QueueType = Config['AMQP_QUEUE_TYPE'];

/**
 * Every declaration of a service's request queue (the broker refuses one whose arguments
 * differ): of the system's queue type, removed after a while without consumers.
 */
function rpcQueueOptions(type: QueueType): amqp.Options.AssertQueue {
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

const rpcQueueName = (prefix: string, service: ServiceName) => `${prefix}.rpc.${service}`;
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

export interface AmqpTransportOptions {
  url: string;
  /** Namespace of queue names and event routing keys, so systems can share one broker. */
  prefix: string;
  timeoutMs: number;
  /** Requests one replica works on at once, per service. */
  prefetch: number;
  /** The type of the durable queues it declares: every process of a system uses the same. */
  queueType: QueueType;
  logger: Logger;
  /** Shown by `rabbitmqctl list_connections`; helps operators tell processes apart. */
  connectionName: string;
}

interface PendingCall {
  method: MethodName;
  resolve: (text: string) => void;
  reject: (error: Error) => void;
}

interface Served {
  service: ServiceName;
  handlers: HandlerTable;
  channel: amqp.Channel | null;
  /** The consumer on `channel`, cancelled when this process stops taking requests. */
  consumerTag: string | null;
}

interface Subscription {
  event: EventName;
  onMessage: (text: string) => void;
  channel: amqp.Channel | null;
}

interface DomainEventConsumption {
  consumer: DomainEventConsumer;
  handler: (event: DomainEvent) => Promise<void>;
  channel: amqp.Channel | null;
  /** The consumer on `channel`, cancelled when this process stops taking events. */
  consumerTag: string | null;
}

/** A domain event in the outbox: kept until the broker confirms it. */
interface OutboxEntry {
  sequence: number;
  id: string;
  type: DomainEventType;
  content: Buffer;
  /** The channel it was sent on, whose confirm it awaits; null while it is to be sent. */
  sentOn: amqp.ConfirmChannel | null;
}

function withHeartbeat(url: string): string {
  if (/[?&]heartbeat=/.test(url)) return url;
  return `${url}${url.includes('?') ? '&' : '?'}heartbeat=10`;
}

/**
 * RPC over RabbitMQ. Each service consumes one queue (`<prefix>.rpc.<service>`); replicas are
 * competing consumers. Replies use direct reply-to. The connection recovers by itself (amqplib
 * recovery): channels, consumers and subscriptions are rebuilt after every reconnect, and calls in
 * flight when the connection drops fail at once instead of waiting for their timeout.
 *
 * Domain events go to `amq.topic` as `<prefix>.domain.<type>`, persistent, on a confirm channel of
 * their own; each consumer of `domainEventConsumers` has a durable queue
 * `<prefix>.events.<consumer>` bound to `<prefix>.domain.#`. A process that publishes or consumes
 * them declares those queues on every connection, before its first event, so an event published
 * before its consumer ever started waits in the consumer's queue. Published events stay in an
 * outbox until the broker confirms them, and are sent again after a refusal or a reconnect.
 */
export class AmqpTransport implements Transport {
  private model: amqp.RecoveringChannelModel | null = null;
  private clientChannel: amqp.Channel | null = null;
  private serverChannel: amqp.Channel | null = null;
  private readonly pending = new Map<string, PendingCall>();
  private readonly served: Served[] = [];
  private readonly subscriptions: Subscription[] = [];
  private readonly connectedWaiters = new Set<() => void>();
  /**
   * Requests this process is answering, with the time their caller stops waiting: a stop lets
   * them finish and send their replies, until then.
   */
  private readonly handling = new Map<Promise<void>, () => number>();
  private closing = false;
  private stopped: Promise<void> | undefined;
  /** The connection whose channels are in use; null while there is none. */
  private connection: amqp.ChannelModel | null = null;
  /** Set at the first domain event published: from then on every connection declares the queues. */
  private publishesDomainEvents = false;
  /** The confirm channel domain events are published on, once their queues are declared. */
  private publisher: amqp.ConfirmChannel | null = null;
  /** The publisher while its write buffer is full: nothing more is sent until it drains. */
  private publisherFull: amqp.ConfirmChannel | null = null;
  /** Domain events not yet confirmed by the broker, oldest first (a Map keeps insertion order). */
  private readonly outbox = new Map<number, OutboxEntry>();
  private nextSequence = 0;
  /** The outbox entries to send next, in order; one sent or removed meanwhile is skipped. */
  private toSend: OutboxEntry[] = [];
  private flushScheduled = false;
  private resendTimer: NodeJS.Timeout | undefined;
  private readonly outboxEmptied = new Set<() => void>();
  /** The channel domain events are consumed on, with a prefetch of its own. */
  private eventChannel: amqp.Channel | null = null;
  private readonly consumptions: DomainEventConsumption[] = [];
  /** Domain events this process is handling: a stop lets them finish (bounded). */
  private readonly eventsInHand = new Set<Promise<void>>();
  /** The opening of domain event channels, one at a time (set-up, first use, reopening). */
  private domainEventSetUp: Promise<void> = Promise.resolve();

  private constructor(private readonly options: AmqpTransportOptions) {}

  static async connect(options: AmqpTransportOptions): Promise<AmqpTransport> {
    const transport = new AmqpTransport(options);
    const { logger } = options;
    const model = await amqp.connect(withHeartbeat(options.url), {
      clientProperties: { connection_name: options.connectionName },
      // amqplib leaves Nagle's algorithm on: a small write (an acknowledgement after a reply)
      // then waits for the broker's delayed TCP acknowledgement, tens of milliseconds, and every
      // reply written behind it waits too.
      noDelay: true,
      recovery: {
        // Attempts at most a second apart, however long the broker has been gone. A longer
        // backoff (it was 5 s) lets one process come back seconds after the others: the system
        // answers again, yet every request that needs that process waits in its queue, and expires
        // there when the wait is longer than the caller's timeout. A second apart costs the broker
        // nothing: a refused attempt is one TCP handshake.
        initialDelay: RECONNECT_FIRST_MS,
        maxDelay: RECONNECT_MAX_MS,
        // A process started before the broker waits about a minute and a half for it, then fails.
        initialMaxRetries: 90,
        maxRetries: Infinity,
        setup: (m: amqp.ChannelModel) => transport.openChannels(m),
      },
    });
    transport.model = model;
    try {
      await transport.checkQueueTypes();
    } catch (error) {
      await transport.close();
      throw error;
    }
    model.on('disconnect', (err: Error) => {
      if (transport.closing) return;
      logger.warn({ err: err?.message }, 'RabbitMQ connection lost; reconnecting');
      transport.dropChannels();
    });
    model.on('connect', () => {
      if (!transport.closing) logger.info('RabbitMQ connection established');
    });
    model.on('connect-failed', (err: Error) => {
      // A queue of another type fails every attempt alike: said where an operator looks.
      if (err instanceof ConfigError) logger.error({ err: err.message }, 'RabbitMQ set-up refused');
      else logger.debug({ err: err.message }, 'RabbitMQ connection attempt failed');
      // An attempt whose set-up failed half-way may have kept channels of its closed connection:
      // none of them may be used (or reported ready) until an attempt succeeds.
      transport.forgetChannels();
    });
    model.on('reconnect-scheduled', ({ attempt, delay }: { attempt: number; delay: number }) =>
      logger.debug({ attempt, delay_ms: delay }, 'RabbitMQ reconnect scheduled'),
    );
    model.on('error', (err: Error) => logger.warn({ err: err.message }, 'RabbitMQ error'));
    model.on('handler-error', (err: Error) =>
      logger.error({ err }, 'RabbitMQ event handler failed'),
    );
    return transport;
  }

  /**
   * Whether the queues of this system that exist are of the configured type, checked once
   * connected and before any is used: a deployment that changes the type fails at once in every
   * process, with one message, rather than in whichever declares a queue first. A queue not yet
   * declared is left to its first declaration; other arguments that differ are said there too.
   */
  private async checkQueueTypes(): Promise<void> {
    for (const { queue, options } of durableQueues(this.options.prefix, this.options.queueType)) {
      const connection = this.connection;
      if (!connection) return; // lost meanwhile: each declaration checks for itself
      // A channel per queue: the broker closes a channel on which it refuses something.
      const channel = await connection.createChannel();
      channel.on('error', () => {});
      try {
        const exists = await channel.checkQueue(queue).then(
          () => true,
          () => false,
        );
        if (exists) await this.declareQueue(channel, queue, options);
      } catch (error) {
        if (error instanceof ConfigError) throw error;
        // Other arguments differ: the declaration that uses the queue says so, as it always did.
      } finally {
        await channel.close().catch(() => {});
      }
    }
  }

  /** Declares a queue of this system; one of another type than AMQP_QUEUE_TYPE is said so. */
  private async declareQueue(
    channel: amqp.Channel,
    queue: string,
    options: amqp.Options.AssertQueue,
  ): Promise<void> {
    try {
      await channel.assertQueue(queue, options);
    } catch (error) {
      throw queueTypeMismatch(error, queue, this.options.queueType) ?? error;
    }
  }

  /** Runs after every (re)connect: opens channels and restores consumers. */
  private async openChannels(model: amqp.ChannelModel): Promise<void> {
    this.connection = model;
    const socket = socketOf(model.connection);
    if (socket) sendWritesPerTick(socket);
    const client = await model.createChannel();
    client.on('error', (err: Error) => this.options.logger.warn({ err: err.message }, 'channel'));
    client.on('return', (message: amqp.Message) => this.onReturned(message));
    await client.consume(REPLY_TO, (message) => message && this.onReply(message), {
      noAck: true,
    });
    const server = await model.createChannel();
    server.on('error', (err: Error) => this.options.logger.warn({ err: err.message }, 'channel'));
    await server.prefetch(this.options.prefetch);
    this.clientChannel = client;
    this.serverChannel = server;
    // A process that is stopping takes no request again after a reconnect.
    if (this.stopped === undefined) {
      for (const served of this.served) await this.consumeService(served, server);
    }
    for (const subscription of this.subscriptions) await this.consumeEvents(subscription, server);
    await this.setUpDomainEvents(model);
    for (const wake of this.connectedWaiters) wake();
    this.connectedWaiters.clear();
  }

  /** The connection is gone: its channels with it, and the calls sent on it. */
  private dropChannels(): void {
    this.forgetChannels();
    for (const [id, call] of this.pending) {
      this.pending.delete(id);
      call.reject(internalError(`The message bus connection was lost during ${call.method}.`));
    }
  }

  /** No channel is usable; calls made from now on wait for the next connection. */
  private forgetChannels(): void {
    this.connection = null;
    this.clientChannel = null;
    this.serverChannel = null;
    this.publisher = null;
    this.publisherFull = null;
    this.eventChannel = null;
    for (const served of this.served) served.channel = null;
    for (const subscription of this.subscriptions) subscription.channel = null;
    for (const consumption of this.consumptions) {
      consumption.channel = null;
      consumption.consumerTag = null;
    }
  }

  private queueName(service: ServiceName): string {
    return rpcQueueName(this.options.prefix, service);
  }

  private onReply(message: amqp.ConsumeMessage): void {
    const id = message.properties.correlationId as string | undefined;
    const call = id === undefined ? undefined : this.pending.get(id);
    if (!call || id === undefined) return; // a late reply to a call that timed out
    this.pending.delete(id);
    call.resolve(message.content.toString('utf8'));
  }

  /** A mandatory request that no queue took: no replica of the service has ever been started. */
  private onReturned(message: amqp.Message): void {
    const id = message.properties.correlationId as string | undefined;
    const call = id === undefined ? undefined : this.pending.get(id);
    if (!call || id === undefined) return;
    this.pending.delete(id);
    call.reject(internalError(`No ${rpcMethods[call.method].service} service is running.`));
  }

  private waitForChannel(): Promise<amqp.Channel> {
    if (this.clientChannel) return Promise.resolve(this.clientChannel);
    return new Promise((resolve) => {
      const wake = () => {
        if (this.clientChannel) resolve(this.clientChannel);
      };
      this.connectedWaiters.add(wake);
    });
  }

  checkConnection(): Promise<void> {
    if (this.closing || this.stopped !== undefined) {
      return Promise.reject(new Error('the message bus connection is closing'));
    }
    if (!this.clientChannel || !this.serverChannel) {
      return Promise.reject(new Error('not connected to RabbitMQ; reconnecting'));
    }
    return Promise.resolve();
  }

  call<M extends MethodName>(
    method: M,
    request: RequestOf<M>,
    callOptions: CallOptions = {},
  ): Promise<ResponseOf<M>> {
    const timeoutMs = callOptions.timeoutMs ?? this.options.timeoutMs;
    // The moment the timer below fires: the service skips work for a caller that has gone.
    const deadline = Date.now() + timeoutMs;
    // One id names the call for its reply (the correlation id) and for its handler (a request
    // delivered again to another replica carries the same).
    const id = randomUUID();
    const text = encodeRequest(method, request, deadline, id);
    return new Promise<string>((resolve, reject) => {
      if (this.closing) return reject(internalError('The message bus is closed.'));
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(timeoutError(method, timeoutMs));
      }, timeoutMs);
      const settle = {
        method,
        resolve: (reply: string) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.pending.set(id, settle);
      void this.waitForChannel().then((channel) => {
        if (!this.pending.has(id)) return; // timed out while the connection was down
        try {
          channel.publish('', this.queueName(rpcMethods[method].service), Buffer.from(text), {
            correlationId: id,
            replyTo: REPLY_TO,
            contentType: 'application/json',
            // The broker drops a request nobody picked up before the caller gave up on it (a
            // request sent after a wait for the connection has less time left).
            expiration: String(Math.max(1, deadline - Date.now())),
            mandatory: true,
          });
        } catch (error) {
          this.pending.delete(id);
          settle.reject(internalError(`Could not send ${method}: ${(error as Error).message}`));
        }
      });
    }).then((reply) => decodeReply(method, reply));
  }

  async serve<S extends ServiceName>(service: S, handlers: ServedHandlers<S>): Promise<void> {
    const served: Served = {
      service,
      handlers: servedTable(service, handlers),
      channel: null,
      consumerTag: null,
    };
    this.served.push(served);
    if (this.serverChannel) await this.consumeService(served, this.serverChannel);
  }

  private async consumeService(served: Served, channel: amqp.Channel): Promise<void> {
    if (served.channel === channel) return;
    served.channel = channel;
    const queue = this.queueName(served.service);
    await this.declareQueue(channel, queue, rpcQueueOptions(this.options.queueType));
    const { consumerTag } = await channel.consume(queue, (message) => {
      if (!message) return;
      let deadline = Date.now() + this.options.timeoutMs;
      const handled = dispatch(
        served.handlers,
        message.content.toString('utf8'),
        this.options.logger,
        (known) => (deadline = known),
      ).then((reply) => {
        try {
          const { replyTo, correlationId } = message.properties as {
            replyTo?: string;
            correlationId?: string;
          };
          if (replyTo) {
            channel.sendToQueue(replyTo, Buffer.from(reply), {
              correlationId,
              contentType: 'application/json',
            });
          }
          // Acknowledged only once its reply is sent: a request this process could not answer
          // goes to another replica.
          channel.ack(message);
        } catch (error) {
          // The channel closed while the handler ran; the caller gets a connection-lost error.
          this.options.logger.warn({ err: (error as Error).message }, 'could not send reply');
        }
      });
      this.handling.set(handled, () => deadline);
      void handled.finally(() => this.handling.delete(handled));
    });
    served.consumerTag = consumerTag;
  }

  async publish<E extends EventName>(event: E, payload: EventOf<E>): Promise<void> {
    const channel = this.clientChannel;
    if (!channel) {
      // Events only invalidate caches that also expire by themselves; losing one is tolerable.
      this.options.logger.warn({ event }, 'event not published: message bus disconnected');
      return;
    }
    channel.publish(
      EVENT_EXCHANGE,
      `${this.options.prefix}.${event}`,
      Buffer.from(encodeEvent(event, payload)),
      { contentType: 'application/json' },
    );
  }

  async subscribe<E extends EventName>(
    event: E,
    handler: (payload: EventOf<E>) => void,
  ): Promise<void> {
    const subscription: Subscription = {
      event,
      channel: null,
      onMessage: (text) => {
        const payload = decodeEvent(event, text);
        if (payload !== undefined) handler(payload);
      },
    };
    this.subscriptions.push(subscription);
    if (this.serverChannel) await this.consumeEvents(subscription, this.serverChannel);
  }

  private async consumeEvents(subscription: Subscription, channel: amqp.Channel): Promise<void> {
    if (subscription.channel === channel) return;
    subscription.channel = channel;
    // Whatever AMQP_QUEUE_TYPE says: a queue of this connection's own, gone with it, which only
    // a classic queue can be (these events only invalidate caches).
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
    await channel.bindQueue(queue, EVENT_EXCHANGE, `${this.options.prefix}.${subscription.event}`);
    await channel.consume(
      queue,
      (message) => message && subscription.onMessage(message.content.toString('utf8')),
      { noAck: true },
    );
  }

  private domainEventQueue(consumer: DomainEventConsumer): string {
    return domainEventQueueName(this.options.prefix, consumer);
  }

  private async declareDomainEventQueue(
    channel: amqp.Channel,
    consumer: DomainEventConsumer,
  ): Promise<string> {
    const queue = this.domainEventQueue(consumer);
    await this.declareQueue(channel, queue, domainEventQueueOptions(this.options.queueType));
    await channel.bindQueue(queue, EVENT_EXCHANGE, `${this.options.prefix}.domain.#`);
    return queue;
  }

  /**
   * Opens what domain events need on `model` and is missing: the publisher once this process
   * publishes, the consuming channel and its consumers once it consumes. One at a time, so the
   * set-up of a connection and a first publish never open a channel twice.
   */
  private setUpDomainEvents(model: amqp.ChannelModel): Promise<void> {
    const done = this.domainEventSetUp.then(() => this.openDomainEventChannels(model));
    this.domainEventSetUp = done.catch(() => {});
    return done;
  }

  private async openDomainEventChannels(model: amqp.ChannelModel): Promise<void> {
    if (this.connection !== model || this.closing) return;
    if (this.publishesDomainEvents && !this.publisher) {
      const channel = await model.createConfirmChannel();
      this.watchDomainEventChannel(channel, model);
      // Declared before the first event is sent on this connection: an event the broker routed
      // to no queue would be confirmed, and lost.
      for (const consumer of domainEventConsumers) {
        await this.declareDomainEventQueue(channel, consumer);
      }
      if (this.connection !== model) return;
      this.publisher = channel;
      this.publisherFull = null;
      this.resendUnconfirmed();
    }
    if (this.consumptions.length > 0 && this.stopped === undefined) {
      let channel = this.eventChannel;
      if (!channel) {
        channel = await model.createChannel();
        this.watchDomainEventChannel(channel, model);
        await channel.prefetch(DOMAIN_EVENT_PREFETCH);
        if (this.connection !== model) return;
        this.eventChannel = channel;
      }
      for (const consumption of this.consumptions) {
        await this.consumeDomainEventQueue(consumption, channel, model);
      }
    }
  }

  /**
   * A domain event channel closes with its connection, or alone when the broker refuses something
   * on it: then it is opened again on the same connection, a while later.
   */
  private watchDomainEventChannel(channel: amqp.Channel, model: amqp.ChannelModel): void {
    channel.on('error', (err: Error) => this.options.logger.warn({ err: err.message }, 'channel'));
    // Before amqplib's own listener, which fails the unconfirmed messages: their callbacks then
    // find the publisher gone.
    channel.prependListener('close', () => {
      if (this.publisher === channel) this.publisher = null;
      if (this.eventChannel === channel) this.eventChannel = null;
      for (const consumption of this.consumptions) {
        if (consumption.channel !== channel) continue;
        consumption.channel = null;
        consumption.consumerTag = null;
      }
      this.setUpDomainEventsLater(model);
    });
  }

  private setUpDomainEventsLater(model: amqp.ChannelModel): void {
    if (this.closing || this.connection !== model) return;
    setTimeout(() => {
      if (this.closing || this.connection !== model) return;
      this.setUpDomainEvents(model).catch((error: Error) =>
        this.options.logger.warn({ err: error.message }, 'could not reopen a domain event channel'),
      );
    }, DOMAIN_EVENT_RETRY_MS).unref();
  }

  publishDomainEvent(event: DomainEvent): void {
    try {
      if (this.closing) {
        this.options.logger.error(
          { event_id: event.id, event_type: event.type },
          'domain event published after the message bus closed; dropped',
        );
        metrics.domainEventsPublished.inc({ type: event.type, outcome: 'dropped' });
        return;
      }
      if (this.outbox.size >= DOMAIN_EVENT_OUTBOX_LIMIT) this.dropOldest();
      const entry: OutboxEntry = {
        sequence: this.nextSequence++,
        id: event.id,
        type: event.type,
        content: Buffer.from(encodeDomainEvent(event)),
        sentOn: null,
      };
      this.outbox.set(entry.sequence, entry);
      metrics.domainEventOutbox.inc();
      this.toSend.push(entry);
      if (!this.publishesDomainEvents) {
        this.publishesDomainEvents = true;
        if (this.connection) {
          this.setUpDomainEvents(this.connection).catch((error: Error) =>
            this.options.logger.warn(
              { err: error.message },
              'could not open the domain event publisher; retrying',
            ),
          );
        }
      }
      this.scheduleFlush();
    } catch (error) {
      // The caller's work is done and must not fail for its event.
      this.options.logger.error({ err: error, event_id: event.id }, 'domain event not published');
    }
  }

  private dropOldest(): void {
    const oldest = this.outbox.values().next().value;
    if (!oldest) return;
    this.outbox.delete(oldest.sequence);
    metrics.domainEventOutbox.dec();
    metrics.domainEventsPublished.inc({ type: oldest.type, outcome: 'dropped' });
    this.options.logger.error(
      { event_id: oldest.id, event_type: oldest.type, limit: DOMAIN_EVENT_OUTBOX_LIMIT },
      'domain event outbox full: the oldest event is dropped',
    );
    // `toSend` is in outbox order: what it holds of the dropped event, and of the events sent
    // meanwhile, is at its head. Removed here, or it would grow while the broker is gone.
    while (this.toSend.length > 0) {
      const head = this.toSend[0]!;
      if (head.sentOn === null && this.outbox.get(head.sequence) === head) break;
      this.toSend.shift();
    }
  }

  /** Sends what is outstanding once per tick, however many events the tick published. */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    const channel = this.publisher;
    if (!channel || this.publisherFull === channel) return;
    let index = 0;
    for (; index < this.toSend.length; index++) {
      const entry = this.toSend[index]!;
      if (entry.sentOn !== null || this.outbox.get(entry.sequence) !== entry) continue;
      entry.sentOn = channel;
      let more: boolean;
      try {
        more = channel.publish(
          EVENT_EXCHANGE,
          `${this.options.prefix}.domain.${entry.type}`,
          entry.content,
          {
            persistent: true,
            contentType: 'application/json',
            messageId: entry.id,
            type: entry.type,
          },
          (error: unknown) => this.onConfirm(entry, channel, error),
        );
      } catch {
        // The channel has closed: the next one sends this entry and those after it.
        entry.sentOn = null;
        break;
      }
      if (!more) {
        // Its write buffer is full: the rest waits for it to drain rather than pile up in memory.
        index++;
        this.publisherFull = channel;
        channel.once('drain', () => {
          if (this.publisherFull !== channel) return;
          this.publisherFull = null;
          this.scheduleFlush();
        });
        break;
      }
    }
    this.toSend.splice(0, index);
  }

  private onConfirm(entry: OutboxEntry, channel: amqp.ConfirmChannel, error: unknown): void {
    if (this.outbox.get(entry.sequence) !== entry) return; // dropped meanwhile
    if (error === null || error === undefined) {
      this.outbox.delete(entry.sequence);
      metrics.domainEventOutbox.dec();
      metrics.domainEventsPublished.inc({ type: entry.type, outcome: 'confirmed' });
      if (this.outbox.size === 0) {
        for (const wake of this.outboxEmptied) wake();
        this.outboxEmptied.clear();
      }
      return;
    }
    if (entry.sentOn === channel) entry.sentOn = null;
    // A nack: the channel is still open. Otherwise it closed, and the reconnect sends it again.
    if (this.publisher === channel) {
      this.options.logger.warn(
        { event_id: entry.id, event_type: entry.type },
        'the broker refused a domain event; it is sent again',
      );
    }
    this.resendLater();
  }

  private resendLater(): void {
    if (this.closing || this.resendTimer) return;
    this.resendTimer = setTimeout(() => {
      this.resendTimer = undefined;
      this.resendUnconfirmed();
    }, DOMAIN_EVENT_RETRY_MS).unref();
  }

  /** Everything the broker has not confirmed, and is not awaiting a confirm for, in order. */
  private resendUnconfirmed(): void {
    const unsent: OutboxEntry[] = [];
    for (const entry of this.outbox.values()) {
      if (entry.sentOn !== null && entry.sentOn === this.publisher) continue;
      entry.sentOn = null;
      unsent.push(entry);
    }
    this.toSend = unsent;
    this.scheduleFlush();
  }

  async consumeDomainEvents(
    consumer: DomainEventConsumer,
    handler: (event: DomainEvent) => Promise<void>,
  ): Promise<void> {
    this.consumptions.push({ consumer, handler, channel: null, consumerTag: null });
    if (this.connection) await this.setUpDomainEvents(this.connection);
  }

  private async consumeDomainEventQueue(
    consumption: DomainEventConsumption,
    channel: amqp.Channel,
    model: amqp.ChannelModel,
  ): Promise<void> {
    if (consumption.channel === channel) return;
    consumption.channel = channel;
    const queue = await this.declareDomainEventQueue(channel, consumption.consumer);
    const { consumerTag } = await channel.consume(queue, (message) => {
      if (message) {
        this.onDomainEvent(consumption, channel, message);
        return;
      }
      // The broker cancelled the consumer (its queue was deleted): declared and consumed again.
      this.options.logger.warn({ queue }, 'domain event consumer cancelled by the broker');
      if (consumption.channel !== channel) return;
      consumption.channel = null;
      consumption.consumerTag = null;
      if (this.stopped === undefined) this.setUpDomainEventsLater(model);
    });
    consumption.consumerTag = consumerTag;
  }

  private onDomainEvent(
    consumption: DomainEventConsumption,
    channel: amqp.Channel,
    message: amqp.ConsumeMessage,
  ): void {
    const { consumer, handler } = consumption;
    const text = message.content.toString('utf8');
    const handled = handleDomainEvent(consumer, text, handler, this.options.logger).then(
      async (outcome) => {
        // Held a while before it goes back to the queue, so that a failing database is not
        // retried in a tight loop; a stopping process hands it back at once.
        if (outcome === 'failed' && this.stopped === undefined) await delay(DOMAIN_EVENT_RETRY_MS);
        try {
          if (outcome === 'failed') channel.nack(message, false, true);
          else channel.ack(message);
        } catch {
          // The channel closed meanwhile: the broker delivers the event again.
        }
      },
    );
    this.eventsInHand.add(handled);
    void handled.finally(() => this.eventsInHand.delete(handled));
  }

  /** Waits, at most `ms`, until the broker has confirmed every event of the outbox. */
  private async drainOutbox(ms: number): Promise<void> {
    if (this.outbox.size === 0) return;
    const emptied = new Promise<void>((resolve) => this.outboxEmptied.add(resolve));
    this.scheduleFlush();
    await settled(emptied, ms);
    this.outboxEmptied.clear();
  }

  /**
   * Stops gracefully: takes no new request (its consumers are cancelled, so the broker gives
   * the next ones to other replicas), lets the requests in hand finish and send their replies
   * (within the RPC timeout, past which their callers have given up), then closes. Calls this
   * process makes keep working meanwhile, since a request in hand may need them. Domain events are
   * treated alike: their consumers are cancelled and the events in hand finish (a few seconds at
   * most); then the outbox is sent, and confirmed, within a few seconds more.
   */
  close(): Promise<void> {
    this.stopped ??= this.stop();
    return this.stopped;
  }

  private async stop(): Promise<void> {
    for (const served of this.served) {
      const { channel, consumerTag } = served;
      if (channel && consumerTag) await channel.cancel(consumerTag).catch(() => {});
      served.consumerTag = null;
    }
    for (const consumption of this.consumptions) {
      const { channel, consumerTag } = consumption;
      if (channel && consumerTag) await channel.cancel(consumerTag).catch(() => {});
      consumption.consumerTag = null;
    }
    // A request's deadline is known once its message is read: read them now.
    const inHand = new Map([...this.handling].map(([done, deadline]) => [done, deadline()]));
    await Promise.all([
      settleInHand(inHand, this.options.timeoutMs),
      settled(Promise.allSettled([...this.eventsInHand]), DOMAIN_EVENT_STOP_MS),
    ]);
    // Only now: the work just finished may have published events too.
    await this.drainOutbox(DOMAIN_EVENT_STOP_MS);
    if (this.outbox.size > 0) {
      this.options.logger.error(
        { events: this.outbox.size },
        'domain events the broker had not confirmed when the process stopped are lost',
      );
      for (const entry of this.outbox.values()) {
        metrics.domainEventsPublished.inc({ type: entry.type, outcome: 'dropped' });
      }
      metrics.domainEventOutbox.dec(this.outbox.size);
      this.outbox.clear();
      this.toSend = [];
    }
    this.closing = true;
    clearTimeout(this.resendTimer);
    for (const [id, call] of this.pending) {
      this.pending.delete(id);
      call.reject(internalError('The message bus is closed.'));
    }
    // Channels are closed before the connection: closing the connection at once would drop the
    // acknowledgements still buffered on them, and the broker would hand requests that were
    // answered to another replica, which would do them again.
    for (const channel of [
      this.eventChannel,
      this.publisher,
      this.serverChannel,
      this.clientChannel,
    ]) {
      await channel?.close().catch(() => {});
    }
    try {
      await this.model?.close();
    } catch {
      // already closed
    }
  }
}
