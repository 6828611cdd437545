import * as amqp from 'amqplib';
import { ConfigError } from '../../config/index.js';
import type { Logger } from '../../logging/index.js';
import { sendWritesPerTick, socketOf } from '../tick-writes.js';
import { declareQueue, durableQueues, type QueueSettings } from './queues.js';

/** The wait before the first attempt to reconnect, doubled after each failed one... */
const RECONNECT_FIRST_MS = 100;
/** ...up to this (amqplib adds up to ±20 % of jitter within it). */
const RECONNECT_MAX_MS = 1000;

export interface AmqpTransportOptions extends QueueSettings {
  url: string;
  timeoutMs: number;
  /** Requests one replica works on at once, per service. */
  prefetch: number;
  logger: Logger;
  /** Shown by `rabbitmqctl list_connections`; helps operators tell processes apart. */
  connectionName: string;
}

/** What uses the connection's channels, told of each connection as it comes and goes. */
export interface ConnectionUsers {
  /** A new connection's client channel is open, before its server channel. */
  clientChannelOpened(channel: amqp.Channel): Promise<void>;
  /** A new connection's client and server channels are open: restores what runs on it. */
  channelsOpened(model: amqp.ChannelModel, server: amqp.Channel): Promise<void>;
  /** No channel of the last connection may be used (or reported ready) any more. */
  channelsForgotten(): void;
  /** The connection was lost: the calls sent on it are failed. */
  connectionLost(): void;
}

function withHeartbeat(url: string): string {
  if (/[?&]heartbeat=/.test(url)) return url;
  return `${url}${url.includes('?') ? '&' : '?'}heartbeat=10`;
}

/**
 * The connection to RabbitMQ and its recovery (amqplib's): after every reconnect it opens the
 * client channel (calls, replies, cache events sent) and the server channel (requests and cache
 * events taken), then lets its users restore their consumers on them; when the connection drops,
 * no channel of it is used again.
 */
export class AmqpConnection {
  private model: amqp.RecoveringChannelModel | null = null;
  private connection: amqp.ChannelModel | null = null;
  private client: amqp.Channel | null = null;
  private server: amqp.Channel | null = null;
  private readonly connectedWaiters = new Set<() => void>();
  private closed = false;
  private stopped: Promise<void> | undefined;

  constructor(
    private readonly options: AmqpTransportOptions,
    private readonly users: ConnectionUsers,
  ) {}

  /** The connection whose channels are in use; null while there is none. */
  get current(): amqp.ChannelModel | null {
    return this.connection;
  }

  /** Calls, their replies, and the cache events published. */
  get clientChannel(): amqp.Channel | null {
    return this.client;
  }

  /** Requests served and cache events taken, with the prefetch of AMQP_PREFETCH. */
  get serverChannel(): amqp.Channel | null {
    return this.server;
  }

  /** Whether this process has begun to stop: it takes no new request or event. */
  get stopping(): boolean {
    return this.stopped !== undefined;
  }

  /** Whether a stop is closing the channels: nothing is sent or reopened from then on. */
  get closing(): boolean {
    return this.closed;
  }

  /** From now on nothing is sent or reopened, and a lost connection is not reported. */
  beginClosing(): void {
    this.closed = true;
  }

  /** Runs `stop` at the first call, and gives every call its outcome. */
  stopOnce(stop: () => Promise<void>): Promise<void> {
    this.stopped ??= stop();
    return this.stopped;
  }

  /** Connects (waiting for a broker that is not up yet); `refused` undoes it on a failed check. */
  async connect(refused: () => Promise<void>): Promise<void> {
    const { logger } = this.options;
    const model = await amqp.connect(withHeartbeat(this.options.url), {
      clientProperties: { connection_name: this.options.connectionName },
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
        setup: (m: amqp.ChannelModel) => this.openChannels(m),
      },
    });
    this.model = model;
    try {
      await this.checkQueueTypes();
    } catch (error) {
      await refused();
      throw error;
    }
    model.on('disconnect', (err: Error) => {
      if (this.closing) return;
      logger.warn({ err: err?.message }, 'RabbitMQ connection lost; reconnecting');
      this.dropChannels();
    });
    model.on('connect', () => {
      if (!this.closing) logger.info('RabbitMQ connection established');
    });
    model.on('connect-failed', (err: Error) => {
      // A queue of another type fails every attempt alike: said where an operator looks.
      if (err instanceof ConfigError) logger.error({ err: err.message }, 'RabbitMQ set-up refused');
      else logger.debug({ err: err.message }, 'RabbitMQ connection attempt failed');
      // An attempt whose set-up failed half-way may have kept channels of its closed connection:
      // none of them may be used (or reported ready) until an attempt succeeds.
      this.forgetChannels();
    });
    model.on('reconnect-scheduled', ({ attempt, delay }: { attempt: number; delay: number }) =>
      logger.debug({ attempt, delay_ms: delay }, 'RabbitMQ reconnect scheduled'),
    );
    model.on('error', (err: Error) => logger.warn({ err: err.message }, 'RabbitMQ error'));
    model.on('handler-error', (err: Error) =>
      logger.error({ err }, 'RabbitMQ event handler failed'),
    );
  }

  /**
   * Whether the queues of this system that exist are of the configured type, checked once
   * connected and before any is used: a deployment that changes the type fails at once in every
   * process, with one message, rather than in whichever declares a queue first. A queue not yet
   * declared is left to its first declaration; other arguments that differ are said there too.
   */
  private async checkQueueTypes(): Promise<void> {
    const { prefix, queueType } = this.options;
    for (const { queue, options } of durableQueues(prefix, queueType)) {
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
        if (exists) await declareQueue(channel, queue, options, queueType);
      } catch (error) {
        if (error instanceof ConfigError) throw error;
        // Other arguments differ: the declaration that uses the queue says so, as it always did.
      } finally {
        await channel.close().catch(() => {});
      }
    }
  }

  /** Runs after every (re)connect: opens channels and restores consumers. */
  private async openChannels(model: amqp.ChannelModel): Promise<void> {
    this.connection = model;
    const socket = socketOf(model.connection);
    if (socket) sendWritesPerTick(socket);
    const client = await model.createChannel();
    client.on('error', (err: Error) => this.options.logger.warn({ err: err.message }, 'channel'));
    await this.users.clientChannelOpened(client);
    const server = await model.createChannel();
    server.on('error', (err: Error) => this.options.logger.warn({ err: err.message }, 'channel'));
    await server.prefetch(this.options.prefetch);
    this.client = client;
    this.server = server;
    await this.users.channelsOpened(model, server);
    for (const wake of this.connectedWaiters) wake();
    this.connectedWaiters.clear();
  }

  /** The connection is gone: its channels with it, and the calls sent on it. */
  private dropChannels(): void {
    this.forgetChannels();
    this.users.connectionLost();
  }

  /** No channel is usable; calls made from now on wait for the next connection. */
  private forgetChannels(): void {
    this.connection = null;
    this.client = null;
    this.server = null;
    this.users.channelsForgotten();
  }

  waitForClientChannel(): Promise<amqp.Channel> {
    if (this.client) return Promise.resolve(this.client);
    return new Promise((resolve) => {
      const wake = () => {
        if (this.client) resolve(this.client);
      };
      this.connectedWaiters.add(wake);
    });
  }

  check(): Promise<void> {
    if (this.closing || this.stopping) {
      return Promise.reject(new Error('the message bus connection is closing'));
    }
    if (!this.client || !this.server) {
      return Promise.reject(new Error('not connected to RabbitMQ; reconnecting'));
    }
    return Promise.resolve();
  }

  /**
   * Closes `first`, then the server and client channels, then the connection. Channels are closed
   * before the connection: closing the connection at once would drop the acknowledgements still
   * buffered on them, and the broker would hand requests that were answered to another replica,
   * which would do them again.
   */
  async close(first: Array<amqp.Channel | null>): Promise<void> {
    for (const channel of [...first, this.server, this.client]) {
      await channel?.close().catch(() => {});
    }
    try {
      await this.model?.close();
    } catch {
      // already closed
    }
  }
}
