import { randomUUID } from 'node:crypto';
import {
  LicensingError,
  domainEventData,
  rpcMethods,
  type CallContext,
  type DomainEvent,
  type DomainEventConsumer,
  type DomainEventData,
  type DomainEventOf,
  type DomainEventType,
  type EventName,
  type EventOf,
  type LicenseCoverage,
  type LicenseCoverageRequest,
  type LicenseStatus,
  type MethodName,
  type ParsedRequestOf,
  type RequestOf,
  type ResponseOf,
} from '../../libs/contracts/index.js';
import { DeadlineContext } from '../../libs/transport/codec.js';
import { unknownKeyCoverageView } from '../../services/license/views.js';
import type { Transport } from '../../libs/transport/index.js';

/** Fakes of what the services' handlers reach over the transport, for fast handler tests. */

/** A clock that stands still until a test moves it. */
export interface TestClock {
  (): Date;
  advance(ms: number): void;
}

export function fixedClock(start: string): TestClock {
  let now = Date.parse(start);
  const clock = (() => new Date(now)) as TestClock;
  clock.advance = (ms) => {
    now += ms;
  };
  return clock;
}

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

/**
 * The data of the recorded domain events of one type, in order, each checked against its schema:
 * parsing strips what the schema does not name, so equal means nothing more and nothing less.
 */
export function publishedData<T extends DomainEventType>(
  events: readonly DomainEvent[],
  type: T,
): Array<DomainEventData<T>> {
  return events
    .filter((event) => event.type === type)
    .map((event) => {
      const data = domainEventData[type].parse(event.data) as DomainEventData<T>;
      expect(data).toEqual(event.data);
      return data;
    });
}

/** A license as the fake license service knows it. */
export interface FakeLicense {
  key: string;
  /** The product, or the bundle, it was bought for. */
  product_id: number;
  /** The products of that bundle (spec 2.2: one level). */
  bundle_items?: number[];
  plan_id: number;
  /** The reported status: an active license past its expiry date is `expired` (spec 3.1). */
  status?: LicenseStatus;
  expires_at?: string | null;
  auto_renew?: boolean;
  next_payment_at?: string | null;
  /** Identifiers activated on it, as the license service matches them after normalisation. */
  activated?: string[];
}

/**
 * `license.coverage` as the license service answers it: whether the key covers the product
 * directly or through its bundle, and the license's plan only for a key covering the product
 * directly (a bundle key sees all-plans files, spec 4.4 rule 5).
 */
export function fakeLicenseService(licenses: readonly FakeLicense[]): Answers {
  const coverage = async ({
    license_key,
    product_id,
    identifier,
  }: LicenseCoverageRequest): Promise<LicenseCoverage> => {
    const license = licenses.find((l) => l.key === license_key);
    if (!license) return unknownKeyCoverageView(identifier !== null);
    const direct = license.product_id === product_id;
    const covers = direct || (license.bundle_items ?? []).includes(product_id);
    return {
      found: true,
      covers,
      status: license.status ?? 'active',
      plan_id: covers && direct ? license.plan_id : null,
      expires_at: license.expires_at ?? null,
      auto_renew: license.auto_renew ?? false,
      next_payment_at: license.next_payment_at ?? null,
      identifier_activated:
        identifier === null ? null : (license.activated ?? []).includes(identifier),
    };
  };
  return { 'license.coverage': coverage };
}
