import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as amqp from 'amqplib';
import request from 'supertest';
import { API_BASE } from '../../libs/contracts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { rpcQueueName } from '../../libs/transport/amqp/queues.js';
import { AmqpTransport } from '../../libs/transport/index.js';
import { eventually } from '../support/eventually.js';
import { ownSystemEnv, ServiceProcesses, type ServiceProcess } from '../support/processes.js';
import { editedFixture } from '../support/store-fixtures.js';
import { SECRET, signedHeaders } from '../support/store-service-harness.js';

/**
 * docs/stores.md, "A stopped replica's events": a stores process killed (SIGKILL) after it
 * answered 200 to a store's events and before it applied them loses none, and applies none
 * twice, once another stores process runs.
 *
 * Where the kill lands is made certain, not timed: the license service is stopped (SIGTERM)
 * before the events arrive, so the applier claims the first event and its call to make the
 * license waits in the license service's queue, where the broker shows it, while the rest stay
 * pending, unclaimed (one event at a time per replica). The stores process calls with a 60 s
 * RPC timeout, so that call is still waiting when the kill lands, and the request is still
 * before its deadline when a new license process takes it: the license is made for a process
 * that is gone, and its event says nothing of it. That is the hardest case for "once": the new
 * stores process takes the dead one's claim when its lease lapses (STORES_APPLY_LEASE_SECONDS,
 * its least, 10 s), and must find that license rather than make a second.
 */
const AMQP_URL = process.env.AMQP_URL;
const withRabbit = AMQP_URL ? describe : describe.skip;
const ORDERS = 6;
/** The Lemon Squeezy variant the fixture sells, mapped to the test's plan. */
const VARIANT = '455';

withRabbit('a stores process killed between the 200 and the application (SIGKILL)', () => {
  let processes: ServiceProcesses;
  let storage: string;
  let env: NodeJS.ProcessEnv;
  let client: AmqpTransport;
  let gateway: string;
  let license: ServiceProcess;

  const startLicense = () => processes.start('start:license', 'license service ready');
  const startStores = () =>
    processes.start('start:stores', 'stores service ready', { RPC_TIMEOUT_MS: '60000' });

  beforeAll(async () => {
    storage = await mkdtemp(path.join(tmpdir(), 'stores-restart-'));
    env = ownSystemEnv({
      label: 'stores',
      adminToken: randomBytes(16).toString('hex'),
      storageDir: storage,
      // The buyer's e-mail is written as files under DATA_DIR/mail.
      overrides: { STORES_APPLY_LEASE_SECONDS: '10', DATA_DIR: storage },
    });
    processes = new ServiceProcesses(env);
    // The services first, so that their queues exist before the gateway takes requests.
    [license] = await Promise.all([
      startLicense(),
      processes.start('start:update-catalog', 'update-catalog service ready'),
    ]);
    gateway = (await processes.start('start:gateway', 'gateway listening')).urlOf(
      'gateway listening',
    );
    client = await AmqpTransport.connect({
      url: AMQP_URL!,
      prefix: env.AMQP_PREFIX!,
      timeoutMs: 10_000,
      prefetch: 1,
      queueType: 'classic',
      logger: createLogger('test', { level: 'silent', format: 'json' }),
      connectionName: 'stores-restart-test',
    });
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await processes?.stopAll();
    await rm(storage, { recursive: true, force: true });
  }, 60_000);

  /** Requests waiting in the license service's queue: none is taken while it is stopped. */
  async function licenseRequestsWaiting(): Promise<number> {
    const connection = await amqp.connect(AMQP_URL!);
    try {
      const channel = await connection.createChannel();
      return (await channel.checkQueue(rpcQueueName(env.AMQP_PREFIX!, 'license'))).messageCount;
    } finally {
      await connection.close();
    }
  }

  test('every event answered 200 is applied once: one license per order, each event applied', async () => {
    const killed = await startStores();
    const product = await client.call('update-catalog.createProduct', {
      title: 'Sold while the stores service dies',
      bundle_items: [],
    });
    const plan = await client.call('license.createPlan', {
      name: 'Stores restart plan',
      activation_type: 'domain',
      activation_limit: 1,
      lease_seconds: null,
      exempt_identifiers: [],
      exempt_limit: 3,
      entitlements: [],
    });
    const connection = await client.call('stores.createConnection', {
      name: 'Restarted shop',
      provider: 'lemonsqueezy',
      mode: 'live',
      signing_secret: SECRET,
      api_key: null,
      grace_days: 3,
      emails: { created: true, renewed: true, suspended: true, cancelled: true },
    });
    await client.call('stores.createMapping', {
      connection_id: connection.id,
      external_id: VARIANT,
      product_id: product.id,
      plan_id: plan.id,
      renewal: 'gateway',
      duration_days: null,
    });
    const listEvents = async () =>
      (
        await client.call('stores.listEvents', {
          connection_id: connection.id,
          outcome: null,
          page: 1,
          per_page: 50,
        })
      ).events;
    const licenses = async () =>
      (await client.call('license.searchLicenses', { product_id: product.id, per_page: 100 }))
        .licenses;

    await license.stop();
    const orders = Array.from({ length: ORDERS }, (_, i) => String(7000 + i));
    for (const order of orders) {
      const body = editedFixture('lemonsqueezy', 'order_created', ['data.id', order]);
      const res = await request(gateway)
        .post(`${API_BASE}/stores/${connection.id}/events`)
        .set({
          'Content-Type': 'application/json',
          ...signedHeaders('lemonsqueezy', body, new Date()),
        })
        .send(body.toString('utf8'));
      expect([res.status, res.body]).toEqual([200, { data: { received: 'recorded' } }]);
    }

    // The first event's license is asked for, and waits; none is applied.
    await eventually(
      'the first license asked for',
      async () => (await licenseRequestsWaiting()) === 1,
    );
    const answered = await listEvents();
    expect(answered.map((e) => [e.order_id, e.outcome, e.attempts]).sort()).toEqual(
      orders.map((order) => [order, 'pending', 0]),
    );
    await killed.kill();

    // The dead process's request is taken: its order's license is made, unknown to its event.
    license = await startLicense();
    await eventually('the license asked for by the killed process made', async () => {
      return (await licenses()).length === 1;
    });
    const [orphan] = await licenses();
    expect(orders).toContain(orphan!.store?.order_id);

    await startStores();
    await eventually(
      'every event applied',
      async () => (await listEvents()).every((e) => e.outcome !== 'pending'),
      40_000,
    );
    const events = await listEvents();
    expect(events.map((e) => [e.order_id, e.outcome, e.attempts]).sort()).toEqual(
      orders.map((order) => [order, 'applied', 1]),
    );
    const made = await licenses();
    expect(made).toHaveLength(ORDERS);
    expect(made.map((l) => l.store?.order_id ?? null).sort()).toEqual(orders);
    const keyOf = new Map(made.map((l) => [l.store?.order_id, l.license_key]));
    for (const event of events) expect(event.license_key).toBe(keyOf.get(event.order_id));
    expect(keyOf.get(orphan!.store!.order_id)).toBe(orphan!.license_key);
  }, 150_000);
});
