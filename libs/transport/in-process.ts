import type {
  EventName,
  EventOf,
  MethodName,
  RequestOf,
  ResponseOf,
  ServiceName,
} from '../contracts/index.js';
import { rpcMethods } from '../contracts/index.js';
import type { Logger } from '../logging/index.js';
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
import type { CallOptions, ServedHandlers, Transport } from './transport.js';

/**
 * The message bus of one process, for the embedded default (no AMQP_URL). Replicas registered for
 * the same service take requests in turn, as competing consumers of a RabbitMQ queue do.
 */
export class InProcessBus {
  private readonly servers = new Map<ServiceName, HandlerTable[]>();
  private readonly nextServer = new Map<ServiceName, number>();
  private readonly subscribers = new Set<(text: string) => void>();

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
    const text = encodeRequest(method, request, Date.now() + timeoutMs);
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
