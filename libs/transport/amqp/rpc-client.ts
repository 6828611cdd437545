import { randomUUID } from 'node:crypto';
import type * as amqp from 'amqplib';
import type { MethodName, RequestOf, ResponseOf } from '../../contracts/index.js';
import { internalError, rpcMethods } from '../../contracts/index.js';
import { decodeReply, encodeRequest, timeoutError } from '../codec.js';
import type { CallOptions } from '../transport.js';
import type { AmqpConnection, AmqpTransportOptions } from './connection.js';
import { rpcQueueName } from './queues.js';

/** RabbitMQ's direct reply-to pseudo queue: replies come back without a queue per caller. */
const REPLY_TO = 'amq.rabbitmq.reply-to';

interface PendingCall {
  method: MethodName;
  resolve: (text: string) => void;
  reject: (error: Error) => void;
}

/**
 * The calls this process makes: each is sent, mandatory and expiring at its deadline, to its
 * service's queue on the client channel, and waits for its reply (direct reply-to, matched by its
 * call id) until its timeout. A call sent while the connection is down waits for the next one.
 */
export class RpcClient {
  private readonly pending = new Map<string, PendingCall>();

  constructor(
    private readonly connection: AmqpConnection,
    private readonly options: Pick<AmqpTransportOptions, 'prefix' | 'timeoutMs'>,
  ) {}

  /** Takes the replies and the returned requests of a new connection's client channel. */
  async listen(channel: amqp.Channel): Promise<void> {
    channel.on('return', (message: amqp.Message) => this.onReturned(message));
    await channel.consume(REPLY_TO, (message) => message && this.onReply(message), {
      noAck: true,
    });
  }

  /** Fails every call still waiting for its reply. */
  failPending(error: (call: PendingCall) => Error): void {
    for (const [id, call] of this.pending) {
      this.pending.delete(id);
      call.reject(error(call));
    }
  }

  private onReply(message: amqp.ConsumeMessage): void {
    const id = message.properties.correlationId as string | undefined;
    const call = id === undefined ? undefined : this.pending.get(id);
    if (!call || id === undefined) return; // a late reply to a call that timed out
    this.pending.delete(id);
    call.resolve(message.content.toString('utf8'));
  }

  /** A mandatory request that no queue took: no replica of the service has ever been started. */
  private onReturned(message: amqp.Message): void {
    const id = message.properties.correlationId as string | undefined;
    const call = id === undefined ? undefined : this.pending.get(id);
    if (!call || id === undefined) return;
    this.pending.delete(id);
    call.reject(internalError(`No ${rpcMethods[call.method].service} service is running.`));
  }

  call<M extends MethodName>(
    method: M,
    request: RequestOf<M>,
    callOptions: CallOptions = {},
  ): Promise<ResponseOf<M>> {
    const timeoutMs = callOptions.timeoutMs ?? this.options.timeoutMs;
    // The moment the timer below fires: the service skips work for a caller that has gone.
    const deadline = Date.now() + timeoutMs;
    // One id names the call for its reply (the correlation id) and for its handler (a request
    // delivered again to another replica carries the same).
    const id = randomUUID();
    const text = encodeRequest(method, request, deadline, id);
    return new Promise<string>((resolve, reject) => {
      if (this.connection.closing) return reject(internalError('The message bus is closed.'));
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(timeoutError(method, timeoutMs));
      }, timeoutMs);
      const settle = {
        method,
        resolve: (reply: string) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.pending.set(id, settle);
      void this.connection.waitForClientChannel().then((channel) => {
        if (!this.pending.has(id)) return; // timed out while the connection was down
        try {
          const queue = rpcQueueName(this.options.prefix, rpcMethods[method].service);
          channel.publish('', queue, Buffer.from(text), {
            correlationId: id,
            replyTo: REPLY_TO,
            contentType: 'application/json',
            // The broker drops a request nobody picked up before the caller gave up on it (a
            // request sent after a wait for the connection has less time left).
            expiration: String(Math.max(1, deadline - Date.now())),
            mandatory: true,
          });
        } catch (error) {
          this.pending.delete(id);
          settle.reject(internalError(`Could not send ${method}: ${(error as Error).message}`));
        }
      });
    }).then((reply) => decodeReply(method, reply));
  }
}
