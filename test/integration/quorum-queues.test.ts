import { spawn } from 'node:child_process';
import * as amqp from 'amqplib';
import { ConfigError } from '../../libs/config/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { AmqpTransport, durableQueues, type QueueType } from '../../libs/transport/index.js';
import { deleteQueuesOf, testAmqpPrefix } from '../support/amqp-queues.js';
import { ownSystemEnv } from '../support/processes.js';
import { ADMIN_TOKEN, bootSystem, type TestSystem } from '../support/system.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * AMQP_QUEUE_TYPE=quorum: the system's durable queues (each service's requests, each consumer's
 * domain events) are quorum queues, on the machine's RabbitMQ, under a prefix of this run's own;
 * and RabbitMQ, which never changes a queue's type, makes a process of the other type refuse to
 * start with one message that says what to do.
 */
const AMQP_URL = process.env.AMQP_URL;
const withRabbit = AMQP_URL ? describe : describe.skip;
const AUTH = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const logger = createLogger('test', 'silent');

/** What the broker says to a declaration of `queue`: ok, or its refusal. */
async function declared(queue: string, options: amqp.Options.AssertQueue): Promise<string> {
  const connection = await amqp.connect(AMQP_URL!);
  try {
    const channel = await connection.createChannel();
    channel.on('error', () => {});
    // Passive first: a queue that is not there is not created by asking.
    await channel.checkQueue(queue);
    return await channel.assertQueue(queue, options).then(
      () => 'ok',
      (error: Error) => error.message,
    );
  } finally {
    await connection.close().catch(() => {});
  }
}

/** A transport of `type` connecting to the queues of `prefix`: connected, or its refusal. */
async function connectAs(prefix: string, type: QueueType): Promise<AmqpTransport> {
  return AmqpTransport.connect({
    url: AMQP_URL!,
    prefix,
    timeoutMs: 2000,
    prefetch: 8,
    queueType: type,
    logger,
    connectionName: `${prefix}:${type}`,
  });
}

withRabbit('quorum queues (AMQP_QUEUE_TYPE=quorum)', () => {
  let system: TestSystem;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    system = await bootSystem(
      { AMQP_QUEUE_TYPE: 'quorum', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
      { licenseReplicas: 2 },
    );
  }, 60_000);

  afterAll(async () => {
    await system?.stop();
    await receiver?.stop();
  });

  test('the licenses flow goes through quorum queues: activate, validate, deactivate, and their events reach a webhook', async () => {
    const endpoint = (
      await system
        .admin()
        .post('/admin/v1/webhooks')
        .set(AUTH)
        .send({ url: receiver.url, events: ['activation.created', 'activation.deleted'] })
        .expect(201)
    ).body.data as { id: number };
    const { product, key } = await system.license({ activation_limit: 1 });

    const activated = await system.post('activate', {
      license_key: key,
      identifier: 'https://www.shop.example/',
      product_id: product.id,
    });
    expect(activated.status).toBe(200);
    expect(activated.body.data).toMatchObject({ identifier: 'shop.example', activations_used: 1 });
    const refused = await system.post('activate', {
      license_key: key,
      identifier: 'other.example',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('ACTIVATION_LIMIT_REACHED');
    const validated = await system.post('validate', {
      license_key: key,
      identifier: 'shop.example',
      product_id: product.id,
    });
    expect(validated.body.data).toMatchObject({ valid: true, identifier_activated: true });
    const deactivated = await system.post('deactivate', {
      license_key: key,
      identifier: 'shop.example',
      product_id: product.id,
    });
    expect(deactivated.status).toBe(200);

    // The events went through the webhooks service's quorum queue.
    await receiver.waitFor((got) => got.length >= 2);
    const types = receiver.received.map((r) => (JSON.parse(r.body) as { type: string }).type);
    expect(types.sort()).toEqual(['activation.created', 'activation.deleted']);
    await system.admin().delete(`/admin/v1/webhooks/${endpoint.id}`).set(AUTH).expect(200);

    // Every durable queue of the system is a quorum queue: declared as classic, it is refused.
    const prefix = system.config.AMQP_PREFIX;
    for (const { queue, options } of durableQueues(prefix, 'quorum')) {
      expect(await declared(queue, options)).toBe('ok');
    }
    for (const { queue, options } of durableQueues(prefix, 'classic')) {
      expect(await declared(queue, options)).toMatch(
        /inequivalent arg 'x-queue-type'.*current is 'quorum'/,
      );
    }
  });

  test('a process whose AMQP_QUEUE_TYPE is not its queues’ refuses to start, saying which queue and what to do', async () => {
    const prefix = system.config.AMQP_PREFIX;
    await expect(connectAs(prefix, 'classic')).rejects.toThrow(ConfigError);
    await expect(connectAs(prefix, 'classic')).rejects.toThrow(
      `AMQP_QUEUE_TYPE is classic, but the queue ${prefix}.rpc.license is a quorum queue, and ` +
        'RabbitMQ cannot change the type of a queue: set AMQP_QUEUE_TYPE=quorum, or move the ' +
        'queues to classic as docs/operations.md says ("Changing the queue type").',
    );

    // As a deployment meets it: the process exits at once with that one line.
    const env = ownSystemEnv({
      label: 'quorum',
      adminToken: ADMIN_TOKEN,
      storageDir: '',
      overrides: { AMQP_PREFIX: prefix, AMQP_QUEUE_TYPE: 'classic' },
    });
    const child = spawn('npm', ['run', 'start:gateway', '--silent'], { env, stdio: 'pipe' });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(1);
    expect(output).toContain(`AMQP_QUEUE_TYPE is classic, but the queue ${prefix}.rpc.license`);
    expect(output).not.toMatch(/^\s+at /m);
  }, 60_000);
});

withRabbit('queues declared before AMQP_QUEUE_TYPE existed', () => {
  test('are classic queues: taken as they are with the default, refused with quorum', async () => {
    const prefix = testAmqpPrefix('oldqueues');
    const connection = await amqp.connect(AMQP_URL!);
    try {
      const channel = await connection.createChannel();
      // As every earlier version declared them: no type.
      await channel.assertQueue(`${prefix}.rpc.license`, {
        durable: true,
        arguments: { 'x-expires': 30 * 60 * 1000 },
      });
      await channel.assertQueue(`${prefix}.events.webhooks`, { durable: true });

      const classic = await connectAs(prefix, 'classic');
      await classic.close();
      await expect(connectAs(prefix, 'quorum')).rejects.toThrow(
        `AMQP_QUEUE_TYPE is quorum, but the queue ${prefix}.rpc.license is a classic queue`,
      );
      await channel.deleteQueue(`${prefix}.rpc.license`);
      // The event queue is checked as well as the request queues.
      await expect(connectAs(prefix, 'quorum')).rejects.toThrow(
        `but the queue ${prefix}.events.webhooks is a classic queue`,
      );
    } finally {
      await connection.close();
      await deleteQueuesOf([prefix]);
    }
  });

  test('a system with no queue yet starts with either type, and the check declares none', async () => {
    const prefix = testAmqpPrefix('fresh');
    for (const type of ['quorum', 'classic'] as const) {
      const transport = await connectAs(prefix, type);
      await transport.close();
    }
    for (const { queue, options } of durableQueues(prefix, 'classic')) {
      await expect(declared(queue, options)).rejects.toThrow(/NOT_FOUND/);
    }
  });
});
