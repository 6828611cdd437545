import type {
  DomainEvent,
  DomainEventConsumer,
  EventName,
  EventOf,
  HandlersOf,
  MethodName,
  MethodsOf,
  RequestOf,
  ResponseOf,
  ServiceName,
} from '../contracts/index.js';

/** A service's health method (rpc.ts): the transport answers it for every service it serves. */
export type HealthMethodOf<S extends ServiceName> = Extract<MethodsOf<S>, `${S}.health`>;

/** What a service passes to `serve`: a handler for every method of the service but health. */
export type ServedHandlers<S extends ServiceName> = Omit<HandlersOf<S>, HealthMethodOf<S>>;

export interface CallOptions {
  /** Overrides the transport's default timeout for this call, and so the deadline it carries. */
  timeoutMs?: number;
}

/**
 * Request/reply RPC plus broadcast events between the gateway, the management API and the
 * services. Every call has a timeout: a service that does not answer in time gives the caller an
 * INTERNAL_ERROR instead of a hung request. The request carries the moment that timeout fires
 * (its deadline), so the service does not run it, or write for it, after the caller gave up.
 */
export interface Transport {
  call<M extends MethodName>(
    method: M,
    request: RequestOf<M>,
    options?: CallOptions,
  ): Promise<ResponseOf<M>>;
  /**
   * Starts answering the methods of one service, its health method included (its name, `ok` and
   * the seconds since it began to be served). Several replicas may serve the same service.
   */
  serve<S extends ServiceName>(service: S, handlers: ServedHandlers<S>): Promise<void>;
  publish<E extends EventName>(event: E, payload: EventOf<E>): Promise<void>;
  subscribe<E extends EventName>(event: E, handler: (payload: EventOf<E>) => void): Promise<void>;
  /**
   * Publishes a domain event durably (at least once) without making the caller wait: it is kept
   * by this process and sent again until the message bus has taken it (on RabbitMQ: a persistent
   * message the broker confirmed, in the queue of every consumer of `domainEventConsumers` that
   * takes its type).
   */
  publishDomainEvent(event: DomainEvent): void;
  /**
   * Takes the domain events of one consumer's queue, one replica each when several consume it.
   * An event is acknowledged only once `handler` has resolved; when it rejects, or the process
   * stops first, the event is delivered again (so the handler must be idempotent by event id).
   */
  consumeDomainEvents(
    consumer: DomainEventConsumer,
    handler: (event: DomainEvent) => Promise<void>,
  ): Promise<void>;
  /** Throws, saying why, when calls cannot be made now (readiness: docs/operations.md). */
  checkConnection(): Promise<void>;
  close(): Promise<void>;
}
