import type * as amqp from 'amqplib';
import type { DomainEvent, DomainEventType } from '../../contracts/index.js';
import { domainEventConsumers } from '../../contracts/index.js';
import { metrics } from '../../observability/index.js';
import { settled } from '../../process/timeout.js';
import {
  DOMAIN_EVENT_OUTBOX_LIMIT,
  DOMAIN_EVENT_RETRY_MS,
  encodeDomainEvent,
} from '../domain-events.js';
import type { AmqpConnection, AmqpTransportOptions } from './connection.js';
import type { DomainEventChannels } from './domain-event-channels.js';
import { declareDomainEventQueue, EVENT_EXCHANGE } from './queues.js';

/** A domain event in the outbox: kept until the broker confirms it. */
interface OutboxEntry {
  sequence: number;
  id: string;
  type: DomainEventType;
  content: Buffer;
  /** The channel it was sent on, whose confirm it awaits; null while it is to be sent. */
  sentOn: amqp.ConfirmChannel | null;
}

/**
 * The domain events this process publishes: sent to `amq.topic` as `<prefix>.domain.<type>`,
 * persistent, on a confirm channel of their own, once every consumer's queue is declared on the
 * connection (so an event published before its consumer ever started waits in its queue). Each
 * stays in the outbox until the broker confirms it, and is sent again after a refusal or a
 * reconnect.
 */
export class DomainEventOutbox {
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

  constructor(
    private readonly connection: AmqpConnection,
    private readonly channels: DomainEventChannels,
    private readonly options: Pick<AmqpTransportOptions, 'prefix' | 'queueType' | 'logger'>,
  ) {}

  /** The channel events are published on, if open. */
  get channel(): amqp.ConfirmChannel | null {
    return this.publisher;
  }

  /** Whether a publisher is to be opened: events are published and none is open. */
  get wantsPublisher(): boolean {
    return this.publishesDomainEvents && !this.publisher;
  }

  /**
   * Opens the publisher on `model`, and sends it what is unconfirmed; false when the connection
   * changed meanwhile.
   */
  async openPublisher(model: amqp.ChannelModel): Promise<boolean> {
    const channel = await model.createConfirmChannel();
    this.channels.watch(channel, model);
    // Declared before the first event is sent on this connection: an event the broker routed
    // to no queue would be confirmed, and lost.
    for (const consumer of domainEventConsumers) {
      await declareDomainEventQueue(channel, this.options, consumer);
    }
    if (this.connection.current !== model) return false;
    this.publisher = channel;
    this.publisherFull = null;
    this.resendUnconfirmed();
    return true;
  }

  /** A domain event channel closed: if it was the publisher, there is none until it reopens. */
  channelClosed(channel: amqp.Channel): void {
    if (this.publisher === channel) this.publisher = null;
  }

  /** The channels of the last connection are gone. */
  forgetChannels(): void {
    this.publisher = null;
    this.publisherFull = null;
  }

  publish(event: DomainEvent): void {
    try {
      if (this.connection.closing) {
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
        const model = this.connection.current;
        if (model) {
          this.channels
            .setUp(model)
            .catch((error: Error) =>
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
    if (this.connection.closing || this.resendTimer) return;
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

  /** Waits, at most `ms`, until the broker has confirmed every event of the outbox. */
  async drain(ms: number): Promise<void> {
    if (this.outbox.size === 0) return;
    const emptied = new Promise<void>((resolve) => this.outboxEmptied.add(resolve));
    this.scheduleFlush();
    await settled(emptied, ms);
    this.outboxEmptied.clear();
  }

  /** Drops what the broker has not confirmed, logged and counted as lost (a stopping process). */
  dropUnconfirmed(): void {
    if (this.outbox.size === 0) return;
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

  /** No event is sent again from now on. */
  stopResending(): void {
    clearTimeout(this.resendTimer);
  }
}
