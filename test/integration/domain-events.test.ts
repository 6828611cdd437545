import { Writable } from 'node:stream';
import * as amqp from 'amqplib';
import { domainEvent, type DomainEvent } from '../../libs/contracts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import {
  AmqpTransport,
  InProcessBus,
  InProcessTransport,
  type Transport,
} from '../../libs/transport/index.js';
import { deleteQueuesOf, testAmqpPrefix } from '../support/amqp-queues.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const logger = createLogger('test', 'silent');
const AMQP_URL = process.env.AMQP_URL;
const withRabbit = AMQP_URL ? describe : describe.skip;

let counter = 0;
/** A valid domain event of its own id. */
function versionPublished(): DomainEvent {
  counter += 1;
  return domainEvent(
    'version.published',
    { product_id: 7, version_id: counter, version: `1.0.${counter}`, release_date: null },
    new Date(),
  );
}

/** A store's license change, which only the audit log's queue and the webhooks' take. */
function storeLicensesChanged(): DomainEvent {
  counter += 1;
  return domainEvent(
    'store.licenses_changed',
    {
      connection: { id: 1, name: 'Shop', provider: 'paddle' },
      store_event: { id: counter, event_id: `evt_${counter}`, type: 'x', kind: 'order_paid' },
      changes: [{ action: 'createLicense', license_key: `K${counter}`, before: null, after: {} }],
    },
    new Date(),
  );
}

/** Records what a handler was given, and resolves `reached(n)` once it has `n` of them. */
function recorder() {
  const seen: DomainEvent[] = [];
  const waiters: Array<{ count: number; wake: () => void }> = [];
  return {
    seen,
    note(event: DomainEvent): void {
      seen.push(event);
      for (const waiter of waiters.filter((w) => seen.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.wake();
      }
    },
    reached(count: number): Promise<void> {
      if (seen.length >= count) return Promise.resolve();
      return new Promise((wake) => waiters.push({ count, wake }));
    },
  };
}

/** Every id of `events` among those seen. */
function idsOf(events: DomainEvent[]): string[] {
  return events.map((event) => event.id);
}

withRabbit('domain events over RabbitMQ', () => {
  const opened: Transport[] = [];
  const prefixes: string[] = [];
  let admin: amqp.ChannelModel;
  let channel: amqp.Channel;

  beforeAll(async () => {
    admin = await amqp.connect(AMQP_URL!);
    channel = await admin.createChannel();
  });

  afterAll(async () => {
    // Closed before their queues go, or their consumers would declare them again.
    await Promise.all(opened.map((transport) => transport.close()));
    await admin.close();
    await deleteQueuesOf(prefixes);
  });

  function newPrefix(label: string): string {
    const prefix = testAmqpPrefix(`events.${label}`);
    prefixes.push(prefix);
    return prefix;
  }

  async function connect(
    prefix: string,
    role: string,
    url = AMQP_URL!,
    log = logger,
  ): Promise<AmqpTransport> {
    const transport = await AmqpTransport.connect({
      url,
      prefix,
      timeoutMs: 2000,
      prefetch: 8,
      queueType: 'classic',
      logger: log,
      connectionName: `${prefix}:${role}`,
    });
    opened.push(transport);
    return transport;
  }

  /** A proxy to the broker (test/support/tcp-proxy.ts), and the broker's URL through it. */
  async function brokerProxy(): Promise<{ proxy: TcpProxy; url: string }> {
    const broker = new URL(AMQP_URL!);
    const proxy = new TcpProxy(broker.hostname, Number(broker.port || 5672));
    await proxy.start();
    const throughProxy = new URL(AMQP_URL!);
    throughProxy.hostname = '127.0.0.1';
    throughProxy.port = String(proxy.port);
    return { proxy, url: throughProxy.toString() };
  }

  /** Messages waiting in (not handed to a consumer of) a consumer's queue. */
  async function waiting(prefix: string, consumer = 'webhooks'): Promise<number> {
    return (await channel.checkQueue(`${prefix}.events.${consumer}`)).messageCount;
  }

  test("each consumer's queue takes the types it consumes: the audit log's only the stores' license changes", async () => {
    const prefix = newPrefix('routes');
    const publisher = await connect(prefix, 'publisher');
    const change = storeLicensesChanged();
    publisher.publishDomainEvent(versionPublished());
    publisher.publishDomainEvent(change);
    await publisher.close();
    expect(await waiting(prefix, 'webhooks')).toBe(2);
    expect(await waiting(prefix, 'audit')).toBe(1);
    const message = await channel.get(`${prefix}.events.audit`, { noAck: true });
    expect(message && JSON.parse(message.content.toString('utf8'))).toEqual(change);
  });

  test('an event published before any consumer exists is delivered once the consumer starts', async () => {
    const prefix = newPrefix('before');
    const publisher = await connect(prefix, 'publisher');
    const event = versionPublished();
    publisher.publishDomainEvent(event);
    // A stop sends the outbox and waits for the broker's confirms.
    await publisher.close();
    expect(await waiting(prefix)).toBe(1);

    const consumer = await connect(prefix, 'consumer');
    const handled = recorder();
    await consumer.consumeDomainEvents('webhooks', async (e) => handled.note(e));
    await handled.reached(1);
    expect(handled.seen).toEqual([event]);
  });

  test('an event is a persistent JSON message with its id, routed by its type', async () => {
    const prefix = newPrefix('message');
    const publisher = await connect(prefix, 'publisher');
    const event = versionPublished();
    publisher.publishDomainEvent(event);
    await publisher.close();
    const message = await channel.get(`${prefix}.events.webhooks`, { noAck: true });
    expect(message).not.toBe(false);
    if (message === false) return;
    expect(message.fields.exchange).toBe('amq.topic');
    expect(message.fields.routingKey).toBe(`${prefix}.domain.version.published`);
    expect(message.properties).toMatchObject({
      deliveryMode: 2,
      contentType: 'application/json',
      messageId: event.id,
    });
    expect(JSON.parse(message.content.toString('utf8'))).toEqual(event);
  });

  test('replicas share the events, and each is handled once when handlers succeed', async () => {
    const prefix = newPrefix('replicas');
    const a = await connect(prefix, 'a');
    const b = await connect(prefix, 'b');
    const publisher = await connect(prefix, 'publisher');
    const handled = recorder();
    const byA: string[] = [];
    const byB: string[] = [];
    // A turn of the event loop each, so deliveries are not all taken by one replica at once.
    const pause = () => new Promise((resolve) => setImmediate(resolve));
    await a.consumeDomainEvents('webhooks', async (event) => {
      await pause();
      byA.push(event.id);
      handled.note(event);
    });
    await b.consumeDomainEvents('webhooks', async (event) => {
      await pause();
      byB.push(event.id);
      handled.note(event);
    });
    const events = Array.from({ length: 200 }, versionPublished);
    for (const event of events) publisher.publishDomainEvent(event);
    await handled.reached(200);
    // Stopped replicas have acknowledged what they handled: nothing is left to deliver again.
    await Promise.all([a.close(), b.close(), publisher.close()]);
    expect(await waiting(prefix)).toBe(0);
    expect(handled.seen).toHaveLength(200);
    expect(new Set(idsOf(handled.seen))).toEqual(new Set(idsOf(events)));
    expect(byA.length).toBeGreaterThan(0);
    expect(byB.length).toBeGreaterThan(0);
  });

  test('an event whose handler rejected is delivered again, with the same id', async () => {
    const prefix = newPrefix('retry');
    const consumer = await connect(prefix, 'consumer');
    const publisher = await connect(prefix, 'publisher');
    const handled = recorder();
    await consumer.consumeDomainEvents('webhooks', async (event) => {
      handled.note(event);
      if (handled.seen.length === 1) throw new Error('the database is not answering');
    });
    const event = versionPublished();
    publisher.publishDomainEvent(event);
    await handled.reached(2);
    expect(idsOf(handled.seen)).toEqual([event.id, event.id]);
    await consumer.close();
    expect(await waiting(prefix)).toBe(0);
  });

  test('a malformed message is acknowledged and does not hold up the next event', async () => {
    const prefix = newPrefix('malformed');
    const consumer = await connect(prefix, 'consumer');
    const handled = recorder();
    await consumer.consumeDomainEvents('webhooks', async (event) => handled.note(event));
    // Routed as the publishers route events, so through the consumer's binding.
    const send = (type: string, text: string) =>
      channel.publish('amq.topic', `${prefix}.domain.${type}`, Buffer.from(text));
    send('garbage', 'not JSON at all');
    send('version.published', JSON.stringify({ id: 'not-a-uuid', type: 'version.published' }));
    const event = versionPublished();
    send(event.type, JSON.stringify(event));
    await handled.reached(1);
    await consumer.close();
    // Neither malformed message went back to the queue.
    expect(await waiting(prefix)).toBe(0);
    expect(handled.seen).toEqual([event]);
  });

  test('events published while the connection is down are sent once it is back', async () => {
    const prefix = newPrefix('outage');
    const { proxy, url } = await brokerProxy();
    try {
      const publisher = await connect(prefix, 'publisher', url);
      const consumer = await connect(prefix, 'consumer');
      const handled = recorder();
      await consumer.consumeDomainEvents('webhooks', async (event) => handled.note(event));
      const before = versionPublished();
      publisher.publishDomainEvent(before);
      await handled.reached(1);

      // Sent on a connection that is cut before the broker can confirm it.
      const cut = versionPublished();
      publisher.publishDomainEvent(cut);
      proxy.refuse();
      // The publisher has noticed: it is trying to reconnect.
      while (proxy.refused < 1) await new Promise((resolve) => setTimeout(resolve, 5));
      const during = Array.from({ length: 20 }, versionPublished);
      for (const event of during) publisher.publishDomainEvent(event);
      while (proxy.refused < 3) await new Promise((resolve) => setTimeout(resolve, 5));
      proxy.relayAgain();

      const expected = idsOf([before, cut, ...during]);
      while (!expected.every((id) => idsOf(handled.seen).includes(id))) {
        await handled.reached(handled.seen.length + 1);
      }
      // At least once: the cut event may have reached the queue before the cut, and again after.
      expect(new Set(idsOf(handled.seen))).toEqual(new Set(expected));
    } finally {
      // Nothing of this test may go on reconnecting through the proxy once it is gone.
      await Promise.all(opened.splice(0).map((transport) => transport.close()));
      await proxy.stop();
    }
  });

  test('a stop while the broker is gone ends, and logs how many events were lost', async () => {
    const prefix = newPrefix('lost');
    const lines: Array<{ msg?: string; events?: number }> = [];
    const capture = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as { msg?: string; events?: number });
        done();
      },
    });
    const log = createLogger('test', { level: 'error', format: 'json', destination: capture });
    const { proxy, url } = await brokerProxy();
    try {
      const publisher = await connect(prefix, 'publisher', url, log);
      proxy.refuse();
      while (proxy.refused < 1) await new Promise((resolve) => setTimeout(resolve, 5));
      publisher.publishDomainEvent(versionPublished());
      publisher.publishDomainEvent(versionPublished());
      await publisher.close();
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: expect.stringMatching(/lost/), events: 2 }),
      );
    } finally {
      await proxy.stop();
    }
  });
});

describe('domain events on the in-process bus', () => {
  const opened: InProcessTransport[] = [];
  afterAll(async () => {
    await Promise.all(opened.map((transport) => transport.close()));
  });
  function connect(bus: InProcessBus): InProcessTransport {
    const transport = new InProcessTransport(bus, { timeoutMs: 2000, logger });
    opened.push(transport);
    return transport;
  }

  test('an event published before its consumer subscribed is delivered to it', async () => {
    const bus = new InProcessBus();
    const event = versionPublished();
    connect(bus).publishDomainEvent(event);
    const handled = recorder();
    await connect(bus).consumeDomainEvents('webhooks', async (e) => handled.note(e));
    await handled.reached(1);
    expect(handled.seen).toEqual([event]);
  });

  test('an event whose handler rejected is delivered again', async () => {
    const bus = new InProcessBus();
    const handled = recorder();
    await connect(bus).consumeDomainEvents('webhooks', async (event) => {
      handled.note(event);
      if (handled.seen.length === 1) throw new Error('the database is not answering');
    });
    const event = versionPublished();
    connect(bus).publishDomainEvent(event);
    await handled.reached(2);
    expect(idsOf(handled.seen)).toEqual([event.id, event.id]);
  });

  test('consumers of the same queue take the events in turn, each event once', async () => {
    const bus = new InProcessBus();
    const handled = recorder();
    const byA: string[] = [];
    const byB: string[] = [];
    await connect(bus).consumeDomainEvents('webhooks', async (event) => {
      byA.push(event.id);
      handled.note(event);
    });
    await connect(bus).consumeDomainEvents('webhooks', async (event) => {
      byB.push(event.id);
      handled.note(event);
    });
    const publisher = connect(bus);
    const events = Array.from({ length: 20 }, versionPublished);
    for (const event of events) publisher.publishDomainEvent(event);
    await handled.reached(20);
    expect(idsOf(handled.seen).sort()).toEqual(idsOf(events).sort());
    expect(byA.length).toBeGreaterThan(0);
    expect(byB.length).toBeGreaterThan(0);
  });

  test("each consumer's queue takes the types it consumes: the audit log's only the stores' license changes", async () => {
    const bus = new InProcessBus();
    const audit = recorder();
    const webhooks = recorder();
    await connect(bus).consumeDomainEvents('audit', async (e) => audit.note(e));
    await connect(bus).consumeDomainEvents('webhooks', async (e) => webhooks.note(e));
    const publisher = connect(bus);
    const [published, change] = [versionPublished(), storeLicensesChanged()];
    publisher.publishDomainEvent(published);
    publisher.publishDomainEvent(change);
    await webhooks.reached(2);
    await audit.reached(1);
    expect(idsOf(webhooks.seen)).toEqual(idsOf([published, change]));
    expect(audit.seen).toEqual([change]);
  });

  test('a malformed event is discarded and does not hold up the next one', async () => {
    const bus = new InProcessBus();
    const event = versionPublished();
    bus.publishDomainEvent({ id: 'x', type: 'version.published', text: '{"id":"x"}' });
    connect(bus).publishDomainEvent(event);
    const handled = recorder();
    await connect(bus).consumeDomainEvents('webhooks', async (e) => handled.note(e));
    await handled.reached(1);
    expect(handled.seen).toEqual([event]);
  });
});
