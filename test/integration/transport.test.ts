import { execFile } from 'node:child_process';
import { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import * as amqp from 'amqplib';
import request from 'supertest';
import type { CallContext, HandlersOf } from '../../libs/contracts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { metricsText } from '../../libs/observability/index.js';
import {
  AmqpTransport,
  createTransport,
  InProcessBus,
  InProcessTransport,
  type Transport,
} from '../../libs/transport/index.js';
import { API_BASE } from '../../libs/contracts/api-base.js';
import { gatewayOn } from '../support/system.js';
import { deleteQueuesOf, testAmqpPrefix } from '../support/amqp-queues.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const run = promisify(execFile);
const logger = createLogger('test', 'silent');
const AMQP_URL = process.env.AMQP_URL;

interface TransportPair {
  name: string;
  connect(role: string, timeoutMs: number): Promise<Transport>;
}

function ownPrefix(label: string): string {
  const prefix = testAmqpPrefix(label);
  prefixes.push(prefix);
  return prefix;
}

function pairs(): TransportPair[] {
  const bus = new InProcessBus();
  const list: TransportPair[] = [
    {
      name: 'in-process',
      connect: async (_role, timeoutMs) => new InProcessTransport(bus, { timeoutMs, logger }),
    },
  ];
  if (AMQP_URL) {
    const prefix = ownPrefix('transport');
    list.push({
      name: 'RabbitMQ',
      connect: (role, timeoutMs) =>
        AmqpTransport.connect({
          url: AMQP_URL,
          prefix,
          timeoutMs,
          prefetch: 8,
          queueType: 'classic',
          logger,
          connectionName: `${prefix}:${role}`,
        }),
    });
  }
  return list;
}

const opened: Transport[] = [];
const prefixes: string[] = [];
afterAll(async () => {
  // Closed before their queues go, or their consumers would declare them again.
  await Promise.all(opened.map((t) => t.close()));
  await deleteQueuesOf(prefixes);
});

/** Only the health method: enough to exercise the transport. */
function downloadHandlers(
  answer: (
    request: unknown,
    context: CallContext,
  ) => Promise<{ service: string; status: 'ok'; uptime_seconds: number }>,
): HandlersOf<'download'> {
  return { 'download.health': answer } as Partial<HandlersOf<'download'>> as HandlersOf<'download'>;
}
const hang = () => new Promise<never>(() => {});

describe.each(pairs())('RPC over the $name transport', ({ name, connect }) => {
  test('a call reaches the service and the reply comes back', async () => {
    const server = await connect('server', 2000);
    const client = await connect('client', 2000);
    opened.push(server, client);
    await server.serve(
      'download',
      downloadHandlers(async () => ({ service: 'download', status: 'ok', uptime_seconds: 7 })),
    );
    await expect(client.call('download.health', {})).resolves.toEqual({
      service: 'download',
      status: 'ok',
      uptime_seconds: 7,
    });
  });

  test('a stopping replica answers the requests it has, and the next go to another replica', async () => {
    // A bus (or queue prefix) of its own: no other test's replica takes these requests.
    const own = pairs().find((pair) => pair.name === name)!;
    const stopping = await own.connect('stopping', 5000);
    const other = await own.connect('other', 5000);
    const client = await own.connect('client', 5000);
    opened.push(stopping, other, client);
    let started = 0;
    let startedNow: () => void = () => {};
    const first = new Promise<void>((resolve) => (startedNow = resolve));
    // Slow answers: the stop comes while one is in hand.
    await stopping.serve(
      'download',
      downloadHandlers(async () => {
        started++;
        startedNow();
        await new Promise((resolve) => setTimeout(resolve, 400));
        return { service: 'stopping', status: 'ok', uptime_seconds: 1 };
      }),
    );
    const inHand = client.call('download.health', {});
    await first;
    const stopped = stopping.close();
    await other.serve(
      'download',
      downloadHandlers(async () => ({ service: 'other', status: 'ok', uptime_seconds: 2 })),
    );
    const after = await client.call('download.health', {});
    await expect(inHand).resolves.toMatchObject({ service: 'stopping' });
    expect(after).toMatchObject({ service: 'other' });
    await stopped;
    expect(started).toBe(1);
  });

  test('a service that does not answer in time gives INTERNAL_ERROR, never a hung call', async () => {
    const server = await connect('server', 300);
    const client = await connect('client', 300);
    opened.push(server, client);
    await server.serve('license', { 'license.health': hang } as unknown as HandlersOf<'license'>);
    await expect(client.call('license.health', {})).rejects.toMatchObject({
      code: 'INTERNAL_ERROR',
      status: 500,
    });
  });

  test('a per-call timeout overrides the default', async () => {
    const server = await connect('server', 60_000);
    const client = await connect('client', 60_000);
    opened.push(server, client);
    await server.serve('update-catalog', {
      'update-catalog.health': hang,
    } as unknown as HandlersOf<'update-catalog'>);
    await expect(
      client.call('update-catalog.health', {}, { timeoutMs: 200 }),
    ).rejects.toMatchObject({ code: 'INTERNAL_ERROR', message: expect.stringMatching(/200 ms/) });
  });

  test('events reach every subscriber', async () => {
    const a = await connect('a', 2000);
    const b = await connect('b', 2000);
    const publisher = await connect('publisher', 2000);
    opened.push(a, b, publisher);
    const seen: string[] = [];
    let bothSeen: () => void = () => {};
    const both = new Promise<void>((resolve) => (bothSeen = resolve));
    const note = (who: string) => (payload: { id: number }) => {
      seen.push(`${who}:${payload.id}`);
      if (seen.length === 2) bothSeen();
    };
    // subscribe resolves once the subscription is in place.
    await a.subscribe('update-catalog.product-changed', note('a'));
    await b.subscribe('update-catalog.product-changed', note('b'));
    await publisher.publish('update-catalog.product-changed', { id: 42 });
    await both;
    expect(seen.sort()).toEqual(['a:42', 'b:42']);
  });
});

describe('RPC metrics', () => {
  test('a call its service did not answer in time is counted with the outcome timeout', async () => {
    const bus = new InProcessBus();
    const server = new InProcessTransport(bus, { timeoutMs: 2000, logger });
    const client = await createTransport(
      {
        AMQP_URL: undefined,
        AMQP_PREFIX: 'test',
        AMQP_PREFETCH: 8,
        AMQP_QUEUE_TYPE: 'classic',
        RPC_TIMEOUT_MS: 100,
      },
      logger,
      'client',
      bus,
    );
    opened.push(server, client);
    await server.serve('download', downloadHandlers(hang));
    const timeouts = async () =>
      Number(
        /rpc_call_duration_seconds_count\{method="download\.health",outcome="timeout"\} (\d+)/.exec(
          await metricsText(),
        )?.[1] ?? 0,
      );
    const before = await timeouts();
    await expect(client.call('download.health', {})).rejects.toMatchObject({
      code: 'INTERNAL_ERROR',
    });
    expect(await timeouts()).toBe(before + 1);
  });
});

describe.each(pairs())('the gateway when a service does not answer ($name)', ({ connect }) => {
  test('the client gets INTERNAL_ERROR (500) in the envelope within the RPC timeout', async () => {
    const server = await connect('server', 300);
    const client = await connect('client', 300);
    opened.push(server, client);
    await server.serve('license', {
      'license.activate': hang,
      'license.validate': hang,
    } as unknown as HandlersOf<'license'>);
    const app = await gatewayOn(client);
    const res = await request(app)
      .post(`${API_BASE}/licenses/validate`)
      .type('form')
      .send('license_key=abc');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { code: 'INTERNAL_ERROR', message: expect.any(String) } });
  });
});

async function closeConnectionsNamed(name: string): Promise<number> {
  const { stdout } = await run('rabbitmqctl', [
    'list_connections',
    'pid',
    'client_properties',
    '-q',
    '--no-table-headers',
  ]);
  const pids = stdout
    .split('\n')
    .filter((line) => line.includes(`"connection_name","${name}"`))
    .map((line) => line.split('\t')[0]!);
  for (const pid of pids) await run('rabbitmqctl', ['close_connection', pid, 'test: drop']);
  return pids.length;
}

const withRabbit = AMQP_URL ? describe : describe.skip;

/** A server and a client over RabbitMQ on a prefix of their own; the server answers health. */
async function rabbitPair(label: string, options: { heartbeat?: number } = {}) {
  const prefix = ownPrefix(label);
  const url =
    options.heartbeat === undefined
      ? AMQP_URL!
      : `${AMQP_URL!}${AMQP_URL!.includes('?') ? '&' : '?'}heartbeat=${options.heartbeat}`;
  const connect = (role: string) =>
    AmqpTransport.connect({
      url,
      prefix,
      timeoutMs: 2000,
      prefetch: 8,
      queueType: 'classic',
      logger,
      connectionName: `${prefix}:${role}`,
    });
  const server = await connect('server');
  const client = await connect('client');
  opened.push(server, client);
  await server.serve(
    'download',
    downloadHandlers(async () => ({ service: 'download', status: 'ok', uptime_seconds: 1 })),
  );
  return { prefix, server, client };
}

withRabbit('RabbitMQ connection recovery', () => {
  test('a request of a replica that died reaches another with the same call id', async () => {
    const prefix = ownPrefix('redelivery');
    const connect = (role: string) =>
      AmqpTransport.connect({
        url: AMQP_URL!,
        prefix,
        timeoutMs: 10_000,
        prefetch: 8,
        queueType: 'classic',
        logger,
        connectionName: `${prefix}:${role}`,
      });
    const dying = await connect('dying');
    const client = await connect('client');
    opened.push(dying, client);
    const seen: string[] = [];
    let taken: () => void = () => {};
    const firstTaken = new Promise<void>((resolve) => (taken = resolve));
    // The first delivery is never answered: its replica's connection is cut while it works.
    const answer = async (_request: unknown, context: CallContext) => {
      seen.push(context.callId);
      if (seen.length === 1) {
        taken();
        return hang();
      }
      return { service: 'download', status: 'ok' as const, uptime_seconds: 1 };
    };
    await dying.serve('download', downloadHandlers(answer));
    const called = client.call('download.health', {});
    await firstTaken;
    const other = await connect('other');
    opened.push(other);
    await other.serve('download', downloadHandlers(answer));
    expect(await closeConnectionsNamed(`${prefix}:dying`)).toBe(1);
    await expect(called).resolves.toMatchObject({ status: 'ok' });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(new Set(seen).size).toBe(1);
  });

  test('a dropped connection is re-established without restarting the process', async () => {
    const { prefix, client } = await rabbitPair('recovery');
    await expect(client.call('download.health', {})).resolves.toMatchObject({ status: 'ok' });

    expect(await closeConnectionsNamed(`${prefix}:server`)).toBe(1);
    expect(await closeConnectionsNamed(`${prefix}:client`)).toBe(1);

    // Calls fail fast (never hang) while reconnecting, then succeed again.
    let answered = false;
    for (let attempt = 0; attempt < 40 && !answered; attempt++) {
      try {
        await client.call('download.health', {}, { timeoutMs: 500 });
        answered = true;
      } catch (error) {
        expect(error).toMatchObject({ code: 'INTERNAL_ERROR' });
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    expect(answered).toBe(true);
  }, 60_000);

  test('a service whose reconnects kept failing takes requests again within a call timeout of the broker coming back', async () => {
    // The service reaches the broker through a proxy that stands for the broker going away;
    // its caller stays connected, so its requests wait in the service's queue meanwhile.
    const broker = new URL(AMQP_URL!);
    const proxy = new TcpProxy(broker.hostname, Number(broker.port || 5672));
    await proxy.start();
    const throughProxy = new URL(AMQP_URL!);
    throughProxy.hostname = '127.0.0.1';
    throughProxy.port = String(proxy.port);
    const prefix = ownPrefix('comeback');
    const connect = (role: string, url: string) =>
      AmqpTransport.connect({
        url,
        prefix,
        timeoutMs: 3000,
        prefetch: 8,
        queueType: 'classic',
        logger,
        connectionName: `${prefix}:${role}`,
      });
    const service = await connect('service', throughProxy.toString());
    const client = await connect('client', AMQP_URL!);
    opened.push(service, client);
    await service.serve(
      'download',
      downloadHandlers(async () => ({ service: 'download', status: 'ok', uptime_seconds: 1 })),
    );
    try {
      await expect(client.call('download.health', {})).resolves.toMatchObject({ status: 'ok' });
      proxy.refuse();
      // Gone long enough for the service's attempts to reconnect to have backed off as far as
      // they go; back right after one of them failed.
      while (proxy.refused < 7) await new Promise((resolve) => setTimeout(resolve, 5));
      proxy.relayAgain();
      // The fault suite's RPC timeout: a request sent as the broker returns must not expire in
      // the queue while its service waits out a long backoff.
      await expect(client.call('download.health', {}, { timeoutMs: 3000 })).resolves.toMatchObject({
        status: 'ok',
      });
    } finally {
      // Nothing of this test may go on reconnecting (and writing) during the next ones.
      await Promise.all([service.close(), client.close()]);
      await proxy.stop();
    }
  }, 60_000);

  test('a reconnect whose set-up fails half-way leaves the process not ready, and no channel of it in use', async () => {
    const lines: Array<{ msg?: string }> = [];
    const capture = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as { msg?: string });
        done();
      },
    });
    const prefix = ownPrefix('halfway');
    const service = await AmqpTransport.connect({
      url: AMQP_URL!,
      prefix,
      timeoutMs: 2000,
      prefetch: 8,
      queueType: 'classic',
      logger: createLogger('test', { level: 'debug', format: 'json', destination: capture }),
      connectionName: `${prefix}:service`,
    });
    opened.push(service);
    await service.serve(
      'download',
      downloadHandlers(async () => ({ service: 'download', status: 'ok', uptime_seconds: 1 })),
    );
    await expect(service.checkConnection()).resolves.toBeUndefined();

    // The service's queue declared again with other arguments: after the next reconnect, the
    // set-up has its channels open when it declares the queue, and the broker refuses it.
    const holder = await amqp.connect(AMQP_URL!);
    try {
      const channel = await holder.createChannel();
      await channel.deleteQueue(`${prefix}.rpc.download`);
      await channel.assertQueue(`${prefix}.rpc.download`, { durable: true });
      expect(await closeConnectionsNamed(`${prefix}:service`)).toBe(1);

      const failed = () => lines.filter((l) => l.msg === 'RabbitMQ connection attempt failed');
      while (failed().length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
      await expect(service.checkConnection()).rejects.toThrow(/not connected/);
      await expect(service.call('download.health', {}, { timeoutMs: 300 })).rejects.toMatchObject({
        code: 'INTERNAL_ERROR',
        message: expect.stringMatching(/did not answer/),
      });
      await channel.deleteQueue(`${prefix}.rpc.download`);
    } finally {
      await holder.close();
      // Nothing of this test may go on reconnecting (and writing) during the next ones.
      await service.close();
    }
  });
});

withRabbit('RabbitMQ writes', () => {
  // The writes counted are every socket's: no connection of an earlier test may add its own (a
  // heartbeat, a reconnect).
  beforeAll(async () => {
    await Promise.all(opened.splice(0).map((transport) => transport.close()));
  });

  test("the connection to the broker turns Nagle's algorithm off", async () => {
    const settings: boolean[] = [];
    const { setNoDelay } = Socket.prototype;
    Socket.prototype.setNoDelay = function (this: Socket, noDelay?: boolean) {
      settings.push(noDelay ?? true);
      return setNoDelay.call(this, noDelay);
    };
    try {
      await rabbitPair('nodelay');
    } finally {
      Socket.prototype.setNoDelay = setNoDelay;
    }
    // A small write (an acknowledgement after its reply) must not wait for the broker's delayed
    // TCP acknowledgement, holding up every reply behind it.
    expect(settings).toEqual([true, true]);
  });

  test('a reply and its acknowledgement reach the broker in one write', async () => {
    // Only this pair's sockets may write while they are counted: the connections of the test
    // before are closed, and this pair's heartbeats are a minute apart, not seconds (one would
    // land in the window now and then).
    await Promise.all(opened.splice(0).map((transport) => transport.close()));
    // This pair's two sockets, known by the no-delay setting each gets (the test above): any
    // other socket of the process (another test's, a log's pipe) is not counted.
    const pairSockets = new Set<Socket>();
    const { setNoDelay } = Socket.prototype;
    Socket.prototype.setNoDelay = function (this: Socket, noDelay?: boolean) {
      pairSockets.add(this);
      return setNoDelay.call(this, noDelay);
    };
    let client: AmqpTransport;
    try {
      ({ client } = await rabbitPair('writes', { heartbeat: 60 }));
    } finally {
      Socket.prototype.setNoDelay = setNoDelay;
    }
    expect(pairSockets.size).toBe(2);
    await client.call('download.health', {});

    // Every hand-over of bytes to the operating system, by socket, during one more call.
    const handOvers = new Map<Socket, number>();
    const count = (socket: Socket) => {
      if (pairSockets.has(socket)) handOvers.set(socket, (handOvers.get(socket) ?? 0) + 1);
    };
    const proto = Socket.prototype as unknown as Record<
      '_write' | '_writev',
      (this: Socket, ...args: unknown[]) => unknown
    >;
    const { _write, _writev } = proto;
    proto._write = function (this: Socket, ...args: unknown[]) {
      count(this);
      return _write.apply(this, args);
    };
    proto._writev = function (this: Socket, ...args: unknown[]) {
      count(this);
      return _writev.apply(this, args);
    };
    try {
      await client.call('download.health', {});
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      proto._write = _write;
      proto._writev = _writev;
    }
    // The client's request, and the server's reply with its acknowledgement: one write each.
    expect([...handOvers.values()]).toEqual([1, 1]);
  });
});
