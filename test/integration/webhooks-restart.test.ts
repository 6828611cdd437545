import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { domainEvent } from '../../libs/contracts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { AmqpTransport } from '../../libs/transport/index.js';
import { deliveryIdFor } from '../../services/webhooks/signatures.js';
import { ownSystemEnv, ServiceProcesses, type ServiceProcess } from '../support/processes.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * docs/webhooks.md, "Guarantees": the webhooks service as its own process (npm run
 * start:webhooks), killed while its deliveries wait for a retry and while events are published,
 * loses nothing: every event is delivered once it is back.
 */
const AMQP_URL = process.env.AMQP_URL;
const withRabbit = AMQP_URL ? describe : describe.skip;
const ADMIN_TOKEN = randomBytes(16).toString('hex');

withRabbit('a webhooks process killed mid-retry (SIGKILL)', () => {
  let processes: ServiceProcesses;
  let storage: string;
  let env: NodeJS.ProcessEnv;
  let receiver: WebhookReceiver;
  let publisher: AmqpTransport;
  let management: string;

  const startWebhooks = () => processes.start('start:webhooks', 'webhooks service ready');

  beforeAll(async () => {
    storage = await mkdtemp(path.join(tmpdir(), 'webhooks-restart-'));
    env = ownSystemEnv({
      label: 'hooks',
      adminToken: ADMIN_TOKEN,
      storageDir: storage,
      overrides: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '2s,2s,2s,2s,2s' },
    });
    processes = new ServiceProcesses(env);
    receiver = await WebhookReceiver.start();
    const managementProcess = await processes.start('start:management', 'management API listening');
    management = managementProcess.urlOf('management API listening');
    publisher = await AmqpTransport.connect({
      url: AMQP_URL!,
      prefix: env.AMQP_PREFIX!,
      timeoutMs: 5000,
      prefetch: 1,
      queueType: 'classic',
      logger: createLogger('test', { level: 'silent', format: 'json' }),
      connectionName: 'webhooks-restart-test',
    });
  }, 120_000);

  afterAll(async () => {
    await publisher?.close();
    await processes?.stopAll();
    await receiver?.stop();
    await rm(storage, { recursive: true, force: true });
  }, 60_000);

  test('every event is delivered once the process is back, under the ids it had', async () => {
    let webhooks: ServiceProcess = await startWebhooks();
    const res = await request(management)
      .post('/admin/v1/webhooks')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ url: receiver.url, events: ['license.created'] });
    expect(res.status).toBe(201);
    const endpointId = res.body.data.id as number;

    const publish = (n: number) =>
      Array.from({ length: n }, (_, i) => {
        const event = domainEvent(
          'license.created',
          {
            license_key: `KEY-${randomBytes(4).toString('hex')}-${i}`,
            product_id: 1,
            plan_id: 1,
            status: 'active',
            activation_limit: 1,
            expires_at: null,
          },
          new Date(),
        );
        publisher.publishDomainEvent(event);
        return deliveryIdFor(event.id, endpointId);
      });

    // Every first attempt fails: the deliveries wait for their retry when the process dies.
    const seen = new Set<string>();
    receiver.answer = (got) => {
      const first = !seen.has(got.id);
      seen.add(got.id);
      return first ? 503 : 200;
    };
    const before = publish(10);
    await receiver.waitFor((got) => new Set(got.map((r) => r.id)).size >= 10);
    await webhooks.kill();
    // Published while no webhooks process runs: they wait in the service's queue.
    const during = publish(10);
    webhooks = await startWebhooks();

    // Each delivery is answered 503 first, then 200: two requests under its id.
    const expected = [...before, ...during].sort();
    const attemptsOf = (id: string) => receiver.received.filter((r) => r.id === id).length;
    await receiver.waitFor(() => expected.every((id) => attemptsOf(id) >= 2), 60_000);
    expect([...new Set(receiver.received.map((r) => r.id))].sort()).toEqual(expected);
    await webhooks.stop();
  }, 120_000);
});
