import {
  DomainEvent,
  domainEvent,
  issueMessage,
  type DomainEventConsumer,
  type DomainEventData,
  type DomainEventOf,
  type DomainEventType,
} from '../contracts/index.js';
import type { Logger } from '../logging/index.js';
import { metrics } from '../observability/index.js';
import type { Transport } from './transport.js';

/**
 * Domain events a process holds for the message bus (per consumer queue on the in-process bus):
 * beyond this the oldest is dropped, so a bus that is gone for long cannot exhaust the memory.
 */
export const DOMAIN_EVENT_OUTBOX_LIMIT = 100_000;

/**
 * The wait before an event is sent or handled again after a failure (a refused publish, a handler
 * that rejected), so that a failing database or broker is not retried in a tight loop.
 */
export const DOMAIN_EVENT_RETRY_MS = 1000;

/** How long a stopping transport waits for the event handlers in hand, and for its outbox. */
export const DOMAIN_EVENT_STOP_MS = 5000;

/** What happened to a delivered event: handled, failed (delivered again) or not an event at all. */
export type DomainEventOutcome = 'ok' | 'failed' | 'malformed';

/** Domain events travel as their JSON, as every message does (codec.ts). */
export function encodeDomainEvent(event: DomainEvent): string {
  return JSON.stringify(event);
}

function decodeDomainEvent(
  text: string,
): { event: DomainEvent; reason?: undefined } | { event?: undefined; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { reason: 'not JSON' };
  }
  const parsed = DomainEvent.safeParse(value);
  if (parsed.success) return { event: parsed.data };
  return { reason: issueMessage(parsed.error.issues[0], 'event') };
}

/**
 * Runs a consumer's handler on one delivered message, logs and counts the outcome, and never
 * rejects. A message that is not a domain event is `malformed`: no handler will ever take it, so
 * the transport acknowledges it rather than delivering it again forever.
 */
export async function handleDomainEvent(
  consumer: DomainEventConsumer,
  text: string,
  handler: (event: DomainEvent) => Promise<void>,
  logger: Logger,
): Promise<DomainEventOutcome> {
  const { event, reason } = decodeDomainEvent(text);
  let outcome: DomainEventOutcome = 'ok';
  if (event === undefined) {
    outcome = 'malformed';
    logger.error(
      { consumer, reason, text: text.slice(0, 200) },
      'malformed domain event discarded',
    );
  } else {
    try {
      await handler(event);
    } catch (error) {
      outcome = 'failed';
      logger.error(
        { err: error, consumer, event_id: event.id, event_type: event.type },
        'domain event handler failed; the event is delivered again',
      );
    }
  }
  metrics.domainEventsConsumed.inc({ consumer, outcome });
  return outcome;
}

/** Publishes one domain event of a type, stamped with the time of the change it reports. */
export type PublishDomainEvent = <T extends DomainEventType>(
  type: T,
  data: DomainEventData<T>,
  at: Date,
) => DomainEventOf<T>;

/**
 * How a service publishes its domain events (libs/contracts/events/domain-events.ts), once the write each
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
