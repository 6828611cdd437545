import { randomUUID } from 'node:crypto';
import * as amqp from 'amqplib';
import type {
  EventName,
  EventOf,
  MethodName,
  RequestOf,
  ResponseOf,
  ServiceName,
} from '../contracts/index.js';
import { internalError, rpcMethods } from '../contracts/index.js';
import type { Logger } from '../logging/index.js';
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
import { sendWritesPerTick, socketOf } from './tick-writes.js';
import type { CallOptions, ServedHandlers, Transport } from './transport.js';

/** RabbitMQ's direct reply-to pseudo queue: replies come back without a queue per caller. */
const REPLY_TO = 'amq.rabbitmq.reply-to';
/** Built-in topic exchange: always present, so events need no topology of their own. */
const EVENT_EXCHANGE = 'amq.topic';
/** A request queue nobody has consumed for this long is removed by the broker. */
const QUEUE_EXPIRES_MS = 30 * 60 * 1000;
/** The wait before the first attempt to reconnect, doubled after each failed one... */
const RECONNECT_FIRST_MS = 100;
/** ...up to this (amqplib adds up to ±20 % of jitter within it). */
const RECONNECT_MAX_MS = 1000;

export interface AmqpTransportOptions {
  url: string;
  /** Namespace of queue names and event routing keys, so systems can share one broker. */
  prefix: string;
  timeoutMs: number;
  /** Requests one replica works on at once, per service. */
  prefetch: number;
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

function withHeartbeat(url: string): string {
  if (/[?&]heartbeat=/.test(url)) return url;
  return `${url}${url.includes('?') ? '&' : '?'}heartbeat=10`;
}

/**
 * RPC over RabbitMQ. Each service consumes one queue (`<prefix>.rpc.<service>`); replicas are
 * competing consumers. Replies use direct reply-to. The connection recovers by itself (amqplib
 * recovery): channels, consumers and subscriptions are rebuilt after every reconnect, and calls in
 * flight when the connection drops fail at once instead of waiting for their timeout.
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
    model.on('disconnect', (err: Error) => {
      if (transport.closing) return;
      logger.warn({ err: err?.message }, 'RabbitMQ connection lost; reconnecting');
      transport.dropChannels();
    });
    model.on('connect', () => {
      if (!transport.closing) logger.info('RabbitMQ connection established');
    });
    model.on('connect-failed', (err: Error) => {
      logger.debug({ err: err.message }, 'RabbitMQ connection attempt failed');
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

  /** Runs after every (re)connect: opens channels and restores consumers. */
  private async openChannels(model: amqp.ChannelModel): Promise<void> {
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
    this.clientChannel = null;
    this.serverChannel = null;
    for (const served of this.served) served.channel = null;
    for (const subscription of this.subscriptions) subscription.channel = null;
  }

  private queueName(service: ServiceName): string {
    return `${this.options.prefix}.rpc.${service}`;
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
    const text = encodeRequest(method, request, deadline);
    const id = randomUUID();
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
    await channel.assertQueue(queue, {
      durable: true,
      arguments: { 'x-expires': QUEUE_EXPIRES_MS },
    });
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
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
    await channel.bindQueue(queue, EVENT_EXCHANGE, `${this.options.prefix}.${subscription.event}`);
    await channel.consume(
      queue,
      (message) => message && subscription.onMessage(message.content.toString('utf8')),
      { noAck: true },
    );
  }

  /**
   * Stops gracefully: takes no new request (its consumers are cancelled, so the broker gives
   * the next ones to other replicas), lets the requests in hand finish and send their replies
   * (within the RPC timeout, past which their callers have given up), then closes. Calls this
   * process makes keep working meanwhile, since a request in hand may need them.
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
    // A request's deadline is known once its message is read: read them now.
    const inHand = new Map([...this.handling].map(([done, deadline]) => [done, deadline()]));
    await settleInHand(inHand, this.options.timeoutMs);
    this.closing = true;
    for (const [id, call] of this.pending) {
      this.pending.delete(id);
      call.reject(internalError('The message bus is closed.'));
    }
    // Channels are closed before the connection: closing the connection at once would drop the
    // acknowledgements still buffered on them, and the broker would hand requests that were
    // answered to another replica, which would do them again.
    for (const channel of [this.serverChannel, this.clientChannel]) {
      await channel?.close().catch(() => {});
    }
    try {
      await this.model?.close();
    } catch {
      // already closed
    }
  }
}
