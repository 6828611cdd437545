import type { DomainEventConsumer, DomainEventType } from '../../contracts/index.js';
import { consumesDomainEvent, domainEventConsumers } from '../../contracts/index.js';
import { DOMAIN_EVENT_OUTBOX_LIMIT, DOMAIN_EVENT_RETRY_MS } from '../domain-events.js';

/** A domain event waiting in a consumer's queue: its JSON, with what a log of its loss names. */
export interface QueuedDomainEvent {
  id: string;
  type: DomainEventType;
  text: string;
}

/** Takes one event; resolves false when it is to be delivered again. */
export type DomainEventTaker = (text: string) => Promise<boolean>;

interface DomainEventQueue {
  events: QueuedDomainEvent[];
  /** The replicas consuming the queue, each with one event at most in hand. */
  takers: Array<{ take: DomainEventTaker; busy: boolean }>;
  next: number;
}

/**
 * The queue of each domain event consumer on the in-process bus, there from the start, so that
 * the events published while the process wires itself wait for it. Its replicas take the events
 * in turn, one at most in hand each; one not handled goes back to the head of its queue.
 */
export class DomainEventQueues {
  private readonly queues = new Map<DomainEventConsumer, DomainEventQueue>(
    domainEventConsumers.map((consumer) => [consumer, { events: [], takers: [], next: 0 }]),
  );

  /**
   * Appends an event to the queue of every consumer that takes its type, as RabbitMQ's bindings
   * route it; returns the events dropped to make room (the oldest of a queue that is full).
   */
  publish(event: QueuedDomainEvent): QueuedDomainEvent[] {
    const dropped: QueuedDomainEvent[] = [];
    for (const [consumer, queue] of this.queues) {
      if (!consumesDomainEvent(consumer, event.type)) continue;
      if (queue.events.length >= DOMAIN_EVENT_OUTBOX_LIMIT) dropped.push(queue.events.shift()!);
      queue.events.push(event);
      setImmediate(() => this.deliver(queue));
    }
    return dropped;
  }

  /** Adds a replica consuming a queue; returns its removal. */
  consume(consumer: DomainEventConsumer, take: DomainEventTaker): () => void {
    const queue = this.queues.get(consumer)!;
    const taker = { take, busy: false };
    queue.takers.push(taker);
    setImmediate(() => this.deliver(queue));
    return () => {
      queue.takers = queue.takers.filter((t) => t !== taker);
    };
  }

  /** Hands waiting events to the idle replicas, in turn. */
  private deliver(queue: DomainEventQueue): void {
    while (queue.events.length > 0) {
      const taker = this.nextIdle(queue);
      if (!taker) return;
      const event = queue.events.shift()!;
      taker.busy = true;
      void taker.take(event.text).then((done) => {
        taker.busy = false;
        if (!done) {
          // Back at the head of the queue a while later, as RabbitMQ requeues a nacked message.
          setTimeout(() => {
            queue.events.unshift(event);
            this.deliver(queue);
          }, DOMAIN_EVENT_RETRY_MS);
        }
        this.deliver(queue);
      });
    }
  }

  private nextIdle(queue: DomainEventQueue): DomainEventQueue['takers'][number] | undefined {
    const { takers } = queue;
    for (let i = 0; i < takers.length; i++) {
      const index = (queue.next + i) % takers.length;
      const taker = takers[index]!;
      if (taker.busy) continue;
      queue.next = index + 1;
      return taker;
    }
    return undefined;
  }
}
