import { randomUUID } from 'node:crypto';
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
import { rpcMethods } from '../contracts/index.js';
import type { Logger } from '../logging/index.js';
import { metrics } from '../observability/index.js';
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
import {
  DOMAIN_EVENT_OUTBOX_LIMIT,
  encodeDomainEvent,
  handleDomainEvent,
} from './domain-events.js';
import {
  DomainEventQueues,
  type DomainEventTaker,
  type QueuedDomainEvent,
} from './in-process/domain-event-queues.js';
import type { CallOptions, ServedHandlers, Transport } from './transport.js';

/**
 * The message bus of one process, for the embedded default (no AMQP_URL). Replicas registered for
 * the same service take requests in turn, as competing consumers of a RabbitMQ queue do. Each
 * domain event consumer has a queue here from the start, so that the events published while the
 * process wires itself wait for it; they live as long as the bus (the process), no longer.
 */
export class InProcessBus {
  private readonly servers = new Map<ServiceName, HandlerTable[]>();
  private readonly nextServer = new Map<ServiceName, number>();
  private readonly subscribers = new Set<(text: string) => void>();
  private readonly domainEventQueues = new DomainEventQueues();

  register(service: ServiceName, handlers: HandlerTable): () => void {
    const list = this.servers.get(service) ?? [];
    list.push(handlers);
    this.servers.set(service, list);
    return () => {
      const current = this.servers.get(service) ?? [];
      this.servers.set(
        service,
        current.filter((h) => h !== handlers),
      );
    };
  }

  /** The next replica of a service in round-robin order, or undefined when none serves it. */
  pick(service: ServiceName): HandlerTable | undefined {
    const list = this.servers.get(service);
    if (!list || list.length === 0) return undefined;
    const index = (this.nextServer.get(service) ?? 0) % list.length;
    this.nextServer.set(service, index + 1);
    return list[index];
  }

  onEvent(listener: (text: string) => void): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  broadcast(text: string): void {
    for (const listener of this.subscribers) setImmediate(() => listener(text));
  }

  /**
   * Appends an event to the queue of every consumer that takes its type; returns the events
   * dropped to make room (the oldest of a queue that is full).
   */
  publishDomainEvent(event: QueuedDomainEvent): QueuedDomainEvent[] {
    return this.domainEventQueues.publish(event);
  }

  /** Adds a replica consuming a queue; returns its removal. */
  consumeDomainEvents(consumer: DomainEventConsumer, take: DomainEventTaker): () => void {
    return this.domainEventQueues.consume(consumer, take);
  }
}

export class InProcessTransport implements Transport {
  private readonly cleanups: Array<() => void> = [];
  /** Requests this transport's services are answering, with their caller's deadline. */
  private readonly handling = new Map<Promise<unknown>, number>();
  private closed = false;

  constructor(
    private readonly bus: InProcessBus,
    private readonly options: { timeoutMs: number; logger: Logger },
  ) {}

  call<M extends MethodName>(
    method: M,
    request: RequestOf<M>,
    callOptions: CallOptions = {},
  ): Promise<ResponseOf<M>> {
    const timeoutMs = callOptions.timeoutMs ?? this.options.timeoutMs;
    // The moment the timer below fires: the service skips work for a caller that has gone.
    const text = encodeRequest(method, request, Date.now() + timeoutMs, randomUUID());
    return new Promise<ResponseOf<M>>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        reject(timeoutError(method, timeoutMs));
      }, timeoutMs);
      // A request for a service nobody serves waits for its timeout, like an unconsumed queue.
      const server = this.bus.pick(rpcMethods[method].service);
      if (!server) return;
      setImmediate(() => {
        void dispatch(server, text, this.options.logger).then((reply) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          try {
            resolve(decodeReply(method, reply));
          } catch (error) {
            reject(error);
          }
        });
      });
    });
  }

  async serve<S extends ServiceName>(service: S, handlers: ServedHandlers<S>): Promise<void> {
    this.assertOpen();
    const tracked: HandlerTable = {};
    for (const [method, handler] of Object.entries(servedTable(service, handlers))) {
      tracked[method as MethodName] = (request, context) => {
        const handled = handler!(request, context);
        this.handling.set(handled, context.deadline);
        void handled.finally(() => this.handling.delete(handled)).catch(() => {});
        return handled;
      };
    }
    this.cleanups.push(this.bus.register(service, tracked));
  }

  async publish<E extends EventName>(event: E, payload: EventOf<E>): Promise<void> {
    this.assertOpen();
    this.bus.broadcast(encodeEvent(event, payload));
  }

  async subscribe<E extends EventName>(
    event: E,
    handler: (payload: EventOf<E>) => void,
  ): Promise<void> {
    this.assertOpen();
    this.cleanups.push(
      this.bus.onEvent((text) => {
        const payload = decodeEvent(event, text);
        if (payload !== undefined) handler(payload);
      }),
    );
  }

  /** Never throws, as RabbitMQ's does not: the bus takes the event at once. */
  publishDomainEvent(event: DomainEvent): void {
    try {
      const dropped = this.bus.publishDomainEvent({
        id: event.id,
        type: event.type,
        text: encodeDomainEvent(event),
      });
      metrics.domainEventsPublished.inc({ type: event.type, outcome: 'confirmed' });
      for (const lost of dropped) {
        metrics.domainEventsPublished.inc({ type: lost.type, outcome: 'dropped' });
        this.options.logger.error(
          { event_id: lost.id, event_type: lost.type, limit: DOMAIN_EVENT_OUTBOX_LIMIT },
          'domain event queue full: the oldest event is dropped',
        );
      }
    } catch (error) {
      this.options.logger.error({ err: error, event_id: event.id }, 'domain event not published');
    }
  }

  async consumeDomainEvents(
    consumer: DomainEventConsumer,
    handler: (event: DomainEvent) => Promise<void>,
  ): Promise<void> {
    this.assertOpen();
    this.cleanups.push(
      this.bus.consumeDomainEvents(consumer, (text) => {
        const handled = handleDomainEvent(consumer, text, handler, this.options.logger);
        // A stop lets it finish, as it does a request in hand.
        this.handling.set(handled, Date.now() + this.options.timeoutMs);
        void handled.finally(() => this.handling.delete(handled));
        return handled.then((outcome) => outcome !== 'failed');
      }),
    );
  }

  checkConnection(): Promise<void> {
    return this.closed
      ? Promise.reject(new Error('the in-process bus is closed'))
      : Promise.resolve();
  }

  /** Stops taking requests, and lets the ones in hand finish while their callers wait. */
  async close(): Promise<void> {
    this.closed = true;
    for (const cleanup of this.cleanups.splice(0)) cleanup();
    await settleInHand(this.handling, this.options.timeoutMs);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('The transport is closed.');
  }
}
