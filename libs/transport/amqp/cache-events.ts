import type * as amqp from 'amqplib';
import type { EventName, EventOf } from '../../contracts/index.js';
import { decodeEvent, encodeEvent } from '../codec.js';
import type { AmqpConnection, AmqpTransportOptions } from './connection.js';
import { EVENT_EXCHANGE } from './queues.js';

interface Subscription {
  event: EventName;
  onMessage: (text: string) => void;
  channel: amqp.Channel | null;
}

/**
 * The broadcast events that invalidate caches: published to `amq.topic` as `<prefix>.<event>` on
 * the client channel, taken by each subscribing process through a queue of its connection's own.
 */
export class CacheEvents {
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly connection: AmqpConnection,
    private readonly options: Pick<AmqpTransportOptions, 'prefix' | 'logger'>,
  ) {}

  async publish<E extends EventName>(event: E, payload: EventOf<E>): Promise<void> {
    const channel = this.connection.clientChannel;
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
    const channel = this.connection.serverChannel;
    if (channel) await this.consumeEvents(subscription, channel);
  }

  /** Takes every subscribed event again on a new connection's server channel. */
  async resume(channel: amqp.Channel): Promise<void> {
    for (const subscription of this.subscriptions) await this.consumeEvents(subscription, channel);
  }

  /** The channels of the last connection are gone. */
  forgetChannels(): void {
    for (const subscription of this.subscriptions) subscription.channel = null;
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
}
