import { randomUUID } from 'node:crypto';
import {
  LicensingError,
  rpcMethods,
  type CallContext,
  type DomainEvent,
  type DomainEventConsumer,
  type DomainEventOf,
  type DomainEventType,
  type EventName,
  type EventOf,
  type MethodName,
  type ParsedRequestOf,
  type RequestOf,
  type ResponseOf,
} from '../../libs/contracts/index.js';
import { DeadlineContext } from '../../libs/transport/codec.js';
import type { Transport } from '../../libs/transport/index.js';

/**
 * The transport as a handler sees it, in memory: what the handler tests run the services'
 * handlers on, and what the expiry benchmark (bench/expiry.ts) publishes the task's events to.
 */

/**
 * A call context on `clock` whose caller stops waiting at `deadline` (epoch milliseconds), with a
 * call id of its own.
 */
export function callContext({
  method,
  clock,
  deadline = clock().getTime() + 5000,
}: {
  method: MethodName;
  clock: () => Date;
  deadline?: number;
}): DeadlineContext {
  return new DeadlineContext(method, deadline, randomUUID(), () => clock().getTime());
}

export type Answers = {
  [M in MethodName]?: (request: ParsedRequestOf<M>, context: CallContext) => Promise<ResponseOf<M>>;
};

/**
 * The transport as the handlers see it: requests are checked and completed with the contract
 * schemas and answered by `answers` (handlers of a service, or a fake), answers are checked
 * against the contract too, and every call has a deadline on the test's clock. Errors of an
 * answer reach the caller as they were thrown.
 */
export class FakeTransport implements Pick<
  Transport,
  'call' | 'publish' | 'subscribe' | 'publishDomainEvent' | 'consumeDomainEvents'
> {
  readonly calls: Array<{ method: MethodName; request: unknown }> = [];
  readonly published: Array<{ event: EventName; payload: unknown }> = [];
  /** The domain events published, in order. */
  readonly domainEvents: DomainEvent[] = [];
  private readonly domainEventConsumers: Array<(event: DomainEvent) => Promise<void>> = [];
  private readonly answers: Answers = {};
  private readonly subscribers: Array<{ event: EventName; handler: (payload: never) => void }> = [];

  constructor(private readonly clock: () => Date) {}

  /** Adds the answers of a service (its handlers) or of a fake. */
  answer(answers: Answers): this {
    Object.assign(this.answers, answers);
    return this;
  }

  async call<M extends MethodName>(method: M, request: RequestOf<M>): Promise<ResponseOf<M>> {
    const contract = rpcMethods[method];
    const parsed = contract.request.parse(request) as ParsedRequestOf<M>;
    this.calls.push({ method, request: parsed });
    const answer = this.answers[method] as Answers[M];
    if (!answer) throw new LicensingError('INTERNAL_ERROR', `Nobody answers ${method}.`);
    const response = await answer(parsed, callContext({ method, clock: this.clock }));
    return contract.response.parse(response) as ResponseOf<M>;
  }

  /** Records the event and hands it to every subscriber, as the broker does. */
  async publish<E extends EventName>(event: E, payload: EventOf<E>): Promise<void> {
    this.published.push({ event, payload });
    for (const subscriber of this.subscribers) {
      if (subscriber.event === event)
        (subscriber.handler as (payload: EventOf<E>) => void)(payload);
    }
  }

  async subscribe<E extends EventName>(
    event: E,
    handler: (payload: EventOf<E>) => void,
  ): Promise<void> {
    this.subscribers.push({ event, handler: handler as (payload: never) => void });
  }

  /** Records the domain event and hands it to every consumer, as the broker's queues do. */
  publishDomainEvent(event: DomainEvent): void {
    this.domainEvents.push(event);
    for (const consumer of this.domainEventConsumers) void consumer(event);
  }

  /** Hands the consumer every domain event published, those before it started included. */
  async consumeDomainEvents(
    _consumer: DomainEventConsumer,
    handler: (event: DomainEvent) => Promise<void>,
  ): Promise<void> {
    this.domainEventConsumers.push(handler);
    for (const event of this.domainEvents) void handler(event);
  }

  /** The domain events of one type published, in order. */
  domainEventsOf<T extends DomainEventType>(type: T): Array<DomainEventOf<T>> {
    return this.domainEvents.filter((event): event is DomainEventOf<T> => event.type === type);
  }

  /** The requests made of one method, in order. */
  requestsOf<M extends MethodName>(method: M): Array<ParsedRequestOf<M>> {
    return this.calls
      .filter((call) => call.method === method)
      .map((call) => call.request as ParsedRequestOf<M>);
  }
}
