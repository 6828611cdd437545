import type * as amqp from 'amqplib';
import type { Logger } from '../../logging/index.js';
import { DOMAIN_EVENT_RETRY_MS } from '../domain-events.js';
import type { AmqpConnection } from './connection.js';

/** What the domain event channels are for: the outbox's publisher and the consumers' channel. */
export interface DomainEventChannelUsers {
  /** Opens on `model` what is missing of the channels domain events need. */
  open(model: amqp.ChannelModel): Promise<void>;
  /** A domain event channel closed: whatever ran on it is forgotten. */
  closed(channel: amqp.Channel): void;
}

/**
 * The opening of domain event channels, one at a time (set-up, first use, reopening), so the
 * set-up of a connection and a first publish never open a channel twice. A channel that closes
 * alone (the broker refused something on it) is opened again on the same connection, a while
 * later.
 */
export class DomainEventChannels {
  private setUps: Promise<void> = Promise.resolve();

  constructor(
    private readonly connection: AmqpConnection,
    private readonly logger: Logger,
    private readonly users: DomainEventChannelUsers,
  ) {}

  /** Opens what domain events need on `model` and is missing, after the set-ups before it. */
  setUp(model: amqp.ChannelModel): Promise<void> {
    const done = this.setUps.then(() => this.open(model));
    this.setUps = done.catch(() => {});
    return done;
  }

  private async open(model: amqp.ChannelModel): Promise<void> {
    if (this.connection.current !== model || this.connection.closing) return;
    await this.users.open(model);
  }

  /**
   * A domain event channel closes with its connection, or alone when the broker refuses something
   * on it: then it is opened again on the same connection, a while later.
   */
  watch(channel: amqp.Channel, model: amqp.ChannelModel): void {
    channel.on('error', (err: Error) => this.logger.warn({ err: err.message }, 'channel'));
    // Before amqplib's own listener, which fails the unconfirmed messages: their callbacks then
    // find the publisher gone.
    channel.prependListener('close', () => {
      this.users.closed(channel);
      this.setUpLater(model);
    });
  }

  setUpLater(model: amqp.ChannelModel): void {
    if (this.connection.closing || this.connection.current !== model) return;
    setTimeout(() => {
      if (this.connection.closing || this.connection.current !== model) return;
      this.setUp(model).catch((error: Error) =>
        this.logger.warn({ err: error.message }, 'could not reopen a domain event channel'),
      );
    }, DOMAIN_EVENT_RETRY_MS).unref();
  }
}
