import type * as amqp from 'amqplib';
import type {
  DomainEvent,
  DomainEventConsumer,
  EventName,
  EventOf,
  MethodName,
  RequestOf,
  ResponseOf,
  ServiceName,
} from '../contracts/index.js';
import { internalError } from '../contracts/index.js';
import { settleInHand } from './codec.js';
import { DOMAIN_EVENT_STOP_MS } from './domain-events.js';
import { CacheEvents } from './amqp/cache-events.js';
import { AmqpConnection, type AmqpTransportOptions } from './amqp/connection.js';
import { DomainEventChannels } from './amqp/domain-event-channels.js';
import { DomainEventConsumers } from './amqp/domain-event-consumers.js';
import { DomainEventOutbox } from './amqp/outbox.js';
import { RpcClient } from './amqp/rpc-client.js';
import { RpcServer } from './amqp/rpc-server.js';
import type { CallOptions, ServedHandlers, Transport } from './transport.js';

export type { AmqpTransportOptions } from './amqp/connection.js';
export { durableQueues, queueTypeMismatch, type QueueType } from './amqp/queues.js';

/**
 * RPC over RabbitMQ. Each service consumes one queue (`<prefix>.rpc.<service>`); replicas are
 * competing consumers. Replies use direct reply-to. The connection recovers by itself (amqplib
 * recovery): channels, consumers and subscriptions are rebuilt after every reconnect, and calls in
 * flight when the connection drops fail at once instead of waiting for their timeout.
 *
 * Domain events go to `amq.topic` as `<prefix>.domain.<type>`, persistent, on a confirm channel of
 * their own; each consumer of `domainEventConsumers` has a durable queue
 * `<prefix>.events.<consumer>` bound to the events it takes (all: `<prefix>.domain.#`). A process that publishes or consumes
 * them declares those queues on every connection, before its first event, so an event published
 * before its consumer ever started waits in the consumer's queue. Published events stay in an
 * outbox until the broker confirms them, and are sent again after a refusal or a reconnect.
 *
 * Each of these is a unit of `amqp/` sharing one `AmqpConnection`; this class composes them, in
 * the order a connection restores them.
 */
export class AmqpTransport implements Transport {
  private readonly connection: AmqpConnection;
  private readonly rpcClient: RpcClient;
  private readonly rpcServer: RpcServer;
  private readonly cacheEvents: CacheEvents;
  private readonly domainEventChannels: DomainEventChannels;
  private readonly outbox: DomainEventOutbox;
  private readonly consumers: DomainEventConsumers;

  private constructor(private readonly options: AmqpTransportOptions) {
    this.connection = new AmqpConnection(options, {
      clientChannelOpened: (channel) => this.rpcClient.listen(channel),
      channelsOpened: (model, server) => this.restore(model, server),
      channelsForgotten: () => {
        this.outbox.forgetChannels();
        this.consumers.forgetChannels();
        this.rpcServer.forgetChannels();
        this.cacheEvents.forgetChannels();
      },
      connectionLost: () =>
        this.rpcClient.failPending((call) =>
          internalError(`The message bus connection was lost during ${call.method}.`),
        ),
    });
    this.rpcClient = new RpcClient(this.connection, options);
    this.rpcServer = new RpcServer(this.connection, options);
    this.cacheEvents = new CacheEvents(this.connection, options);
    this.domainEventChannels = new DomainEventChannels(this.connection, options.logger, {
      open: (model) => this.openDomainEventChannels(model),
      closed: (channel) => {
        this.outbox.channelClosed(channel);
        this.consumers.channelClosed(channel);
      },
    });
    this.outbox = new DomainEventOutbox(this.connection, this.domainEventChannels, options);
    this.consumers = new DomainEventConsumers(this.connection, this.domainEventChannels, options);
  }

  static async connect(options: AmqpTransportOptions): Promise<AmqpTransport> {
    const transport = new AmqpTransport(options);
    await transport.connection.connect(() => transport.close());
    return transport;
  }

  /** Runs after every (re)connect, once the client and server channels are open. */
  private async restore(model: amqp.ChannelModel, server: amqp.Channel): Promise<void> {
    // A process that is stopping takes no request again after a reconnect.
    if (!this.connection.stopping) await this.rpcServer.resume(server);
    await this.cacheEvents.resume(server);
    await this.domainEventChannels.setUp(model);
  }

  /**
   * Opens what domain events need on `model` and is missing: the publisher once this process
   * publishes, the consuming channel and its consumers once it consumes.
   */
  private async openDomainEventChannels(model: amqp.ChannelModel): Promise<void> {
    if (this.outbox.wantsPublisher && !(await this.outbox.openPublisher(model))) return;
    if (this.consumers.wanted) await this.consumers.open(model);
  }

  checkConnection(): Promise<void> {
    return this.connection.check();
  }

  call<M extends MethodName>(
    method: M,
    request: RequestOf<M>,
    callOptions: CallOptions = {},
  ): Promise<ResponseOf<M>> {
    return this.rpcClient.call(method, request, callOptions);
  }

  serve<S extends ServiceName>(service: S, handlers: ServedHandlers<S>): Promise<void> {
    return this.rpcServer.serve(service, handlers);
  }

  publish<E extends EventName>(event: E, payload: EventOf<E>): Promise<void> {
    return this.cacheEvents.publish(event, payload);
  }

  subscribe<E extends EventName>(event: E, handler: (payload: EventOf<E>) => void): Promise<void> {
    return this.cacheEvents.subscribe(event, handler);
  }

  publishDomainEvent(event: DomainEvent): void {
    this.outbox.publish(event);
  }

  consumeDomainEvents(
    consumer: DomainEventConsumer,
    handler: (event: DomainEvent) => Promise<void>,
  ): Promise<void> {
    return this.consumers.consume(consumer, handler);
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
    return this.connection.stopOnce(() => this.stop());
  }

  private async stop(): Promise<void> {
    await this.rpcServer.stopTaking();
    await this.consumers.stopTaking();
    await Promise.all([
      settleInHand(this.rpcServer.inHand(), this.options.timeoutMs),
      this.consumers.settleInHand(DOMAIN_EVENT_STOP_MS),
    ]);
    // Only now: the work just finished may have published events too.
    await this.outbox.drain(DOMAIN_EVENT_STOP_MS);
    this.outbox.dropUnconfirmed();
    this.connection.beginClosing();
    this.outbox.stopResending();
    this.rpcClient.failPending(() => internalError('The message bus is closed.'));
    await this.connection.close([this.consumers.channel, this.outbox.channel]);
  }
}
