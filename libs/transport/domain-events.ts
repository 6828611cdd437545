import {
  domainEvent,
  type DomainEventData,
  type DomainEventOf,
  type DomainEventType,
} from '../contracts/index.js';
import type { Logger } from '../logging/index.js';
import type { Transport } from './transport.js';

/** Publishes one domain event of a type, stamped with the time of the change it reports. */
export type PublishDomainEvent = <T extends DomainEventType>(
  type: T,
  data: DomainEventData<T>,
  at: Date,
) => DomainEventOf<T>;

/**
 * How a service publishes its domain events (libs/contracts/webhooks.ts), once the write each
 * reports has succeeded: a new event with its own id, handed to the transport, which keeps it
 * until the message bus has taken it (transport.ts `publishDomainEvent`). The write is done by
 * then, so a transport that throws must not turn the change into a failure its caller would
 * retry: the event is logged as lost instead.
 */
export function domainEventPublisher(
  transport: Pick<Transport, 'publishDomainEvent'>,
  logger: Logger,
): PublishDomainEvent {
  return (type, data, at) => {
    const event = domainEvent(type, data, at);
    try {
      transport.publishDomainEvent(event);
    } catch (error) {
      logger.error(
        { err: error, event: type, event_id: event.id },
        'a domain event could not be published',
      );
    }
    return event;
  };
}
