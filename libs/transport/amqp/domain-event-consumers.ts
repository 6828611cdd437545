import { setTimeout as delay } from 'node:timers/promises';
import type * as amqp from 'amqplib';
import type { DomainEvent, DomainEventConsumer } from '../../contracts/index.js';
import { settled } from '../../process/timeout.js';
import { DOMAIN_EVENT_RETRY_MS, handleDomainEvent } from '../domain-events.js';
import type { AmqpConnection, AmqpTransportOptions } from './connection.js';
import type { DomainEventChannels } from './domain-event-channels.js';
import { declareDomainEventQueue } from './queues.js';

/** Domain events one process handles at once, per consumer. */
const DOMAIN_EVENT_PREFETCH = 32;

interface DomainEventConsumption {
  consumer: DomainEventConsumer;
  handler: (event: DomainEvent) => Promise<void>;
  channel: amqp.Channel | null;
  /** The consumer on `channel`, cancelled when this process stops taking events. */
  consumerTag: string | null;
}

/**
 * The domain event consumers of this process: each takes its durable queue
 * (`<prefix>.events.<consumer>`, bound to the events it takes) on a channel of their own with a
 * prefetch of its own, and acknowledges an event once its handler has resolved; one whose handler
 * failed goes back to the queue a while later.
 */
export class DomainEventConsumers {
  /** The channel domain events are consumed on, with a prefetch of its own. */
  private eventChannel: amqp.Channel | null = null;
  private readonly consumptions: DomainEventConsumption[] = [];
  /** Domain events this process is handling: a stop lets them finish (bounded). */
  private readonly eventsInHand = new Set<Promise<void>>();

  constructor(
    private readonly connection: AmqpConnection,
    private readonly channels: DomainEventChannels,
    private readonly options: Pick<AmqpTransportOptions, 'prefix' | 'queueType' | 'logger'>,
  ) {}

  /** The channel events are consumed on, if open. */
  get channel(): amqp.Channel | null {
    return this.eventChannel;
  }

  /** Whether the consuming channel and consumers are to be opened on a connection. */
  get wanted(): boolean {
    return this.consumptions.length > 0 && !this.connection.stopping;
  }

  async consume(
    consumer: DomainEventConsumer,
    handler: (event: DomainEvent) => Promise<void>,
  ): Promise<void> {
    this.consumptions.push({ consumer, handler, channel: null, consumerTag: null });
    const model = this.connection.current;
    if (model) await this.channels.setUp(model);
  }

  /** Opens the consuming channel on `model` if there is none, and the consumers missing on it. */
  async open(model: amqp.ChannelModel): Promise<void> {
    let channel = this.eventChannel;
    if (!channel) {
      channel = await model.createChannel();
      this.channels.watch(channel, model);
      await channel.prefetch(DOMAIN_EVENT_PREFETCH);
      if (this.connection.current !== model) return;
      this.eventChannel = channel;
    }
    for (const consumption of this.consumptions) {
      await this.consumeQueue(consumption, channel, model);
    }
  }

  /** A domain event channel closed: the consumers on it are gone with it. */
  channelClosed(channel: amqp.Channel): void {
    if (this.eventChannel === channel) this.eventChannel = null;
    for (const consumption of this.consumptions) {
      if (consumption.channel !== channel) continue;
      consumption.channel = null;
      consumption.consumerTag = null;
    }
  }

  /** The channels of the last connection are gone. */
  forgetChannels(): void {
    this.eventChannel = null;
    for (const consumption of this.consumptions) {
      consumption.channel = null;
      consumption.consumerTag = null;
    }
  }

  /** Takes no new event: the broker gives the next ones to other replicas. */
  async stopTaking(): Promise<void> {
    for (const consumption of this.consumptions) {
      const { channel, consumerTag } = consumption;
      if (channel && consumerTag) await channel.cancel(consumerTag).catch(() => {});
      consumption.consumerTag = null;
    }
  }

  /** Waits, at most `ms`, for the events in hand to be handled. */
  settleInHand(ms: number): Promise<void> {
    return settled(Promise.allSettled([...this.eventsInHand]), ms);
  }

  private async consumeQueue(
    consumption: DomainEventConsumption,
    channel: amqp.Channel,
    model: amqp.ChannelModel,
  ): Promise<void> {
    if (consumption.channel === channel) return;
    consumption.channel = channel;
    const queue = await declareDomainEventQueue(channel, this.options, consumption.consumer);
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
      if (!this.connection.stopping) this.channels.setUpLater(model);
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
        if (outcome === 'failed' && !this.connection.stopping) await delay(DOMAIN_EVENT_RETRY_MS);
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
}
