import type * as amqp from 'amqplib';
import type { ServiceName } from '../../contracts/index.js';
import { dispatch, servedTable, type HandlerTable } from '../codec.js';
import type { ServedHandlers } from '../transport.js';
import type { AmqpConnection, AmqpTransportOptions } from './connection.js';
import { declareQueue, rpcQueueName, rpcQueueOptions } from './queues.js';

interface Served {
  service: ServiceName;
  handlers: HandlerTable;
  channel: amqp.Channel | null;
  /** The consumer on `channel`, cancelled when this process stops taking requests. */
  consumerTag: string | null;
}

/**
 * The services this process serves: each consumes its queue (`<prefix>.rpc.<service>`) on the
 * server channel, replicas as competing consumers, and acknowledges a request once its reply is
 * sent. A stop cancels the consumers and lets the requests in hand finish until their deadlines.
 */
export class RpcServer {
  private readonly served: Served[] = [];
  /**
   * Requests this process is answering, with the time their caller stops waiting: a stop lets
   * them finish and send their replies, until then.
   */
  private readonly handling = new Map<Promise<void>, () => number>();

  constructor(
    private readonly connection: AmqpConnection,
    private readonly options: Pick<
      AmqpTransportOptions,
      'prefix' | 'queueType' | 'timeoutMs' | 'logger'
    >,
  ) {}

  async serve<S extends ServiceName>(service: S, handlers: ServedHandlers<S>): Promise<void> {
    const served: Served = {
      service,
      handlers: servedTable(service, handlers),
      channel: null,
      consumerTag: null,
    };
    this.served.push(served);
    const channel = this.connection.serverChannel;
    if (channel) await this.consumeService(served, channel);
  }

  /** Consumes every served queue on a new connection's server channel. */
  async resume(channel: amqp.Channel): Promise<void> {
    for (const served of this.served) await this.consumeService(served, channel);
  }

  /** The channels of the last connection are gone. */
  forgetChannels(): void {
    for (const served of this.served) served.channel = null;
  }

  /** Takes no new request: the broker gives the next ones to other replicas. */
  async stopTaking(): Promise<void> {
    for (const served of this.served) {
      const { channel, consumerTag } = served;
      if (channel && consumerTag) await channel.cancel(consumerTag).catch(() => {});
      served.consumerTag = null;
    }
  }

  /** The requests in hand, with their deadlines (known once each message is read: read now). */
  inHand(): Map<Promise<void>, number> {
    return new Map([...this.handling].map(([done, deadline]) => [done, deadline()]));
  }

  private async consumeService(served: Served, channel: amqp.Channel): Promise<void> {
    if (served.channel === channel) return;
    served.channel = channel;
    const { prefix, queueType, logger } = this.options;
    const queue = rpcQueueName(prefix, served.service);
    await declareQueue(channel, queue, rpcQueueOptions(queueType), queueType);
    const { consumerTag } = await channel.consume(queue, (message) => {
      if (!message) return;
      let deadline = Date.now() + this.options.timeoutMs;
      const handled = dispatch(
        served.handlers,
        message.content.toString('utf8'),
        logger,
        (known) => (deadline = known),
      ).then((reply) => {
        try {
          const { replyTo, correlationId } = message.properties as {
            replyTo?: string;
            correlationId?: string;
          };
          if (replyTo) {
            channel.sendToQueue(replyTo, Buffer.from(reply), {
              correlationId,
              contentType: 'application/json',
            });
          }
          // Acknowledged only once its reply is sent: a request this process could not answer
          // goes to another replica.
          channel.ack(message);
        } catch (error) {
          // The channel closed while the handler ran; the caller gets a connection-lost error.
          logger.warn({ err: (error as Error).message }, 'could not send reply');
        }
      });
      this.handling.set(handled, () => deadline);
      void handled.finally(() => this.handling.delete(handled));
    });
    served.consumerTag = consumerTag;
  }
}
