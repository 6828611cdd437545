import { Webhook } from 'standardwebhooks';
import { domainEventTypes } from '../../libs/contracts/index.js';
import { postWebhook } from '../../services/webhooks/destination.js';
import {
  AUTH,
  createVersion,
  download,
  eventually,
  packageBytes,
  uploadFile,
} from '../support/packages.js';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';
import { WebhookReceiver, type ReceivedWebhook } from '../support/webhook-receiver.js';

/**
 * docs/webhooks.md: the services' domain events reach registered endpoints through RabbitMQ and
 * the webhooks service, signed as Standard Webhooks says, retried, logged, once per event.
 */

let system: TestSystem;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  system = await bootSystem({
    // The receiver is on the loopback.
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s',
  });
}, 60_000);
afterAll(async () => {
  await system?.stop();
  await receiver?.stop();
});

beforeEach(() => {
  receiver.received.length = 0;
  receiver.answer = () => 204;
});

async function register(events: string[] = ['*'], url = receiver.url) {
  const res = await system.admin().post('/admin/v1/webhooks').set(AUTH).send({ url, events });
  expect(res.status).toBe(201);
  return res.body.data as { id: number; secret: string };
}

async function unregister(id: number) {
  await system.admin().delete(`/admin/v1/webhooks/${id}`).set(AUTH).expect(200);
}

async function deliveries(endpointId: number) {
  const res = await system
    .admin()
    .get(`/admin/v1/webhooks/${endpointId}/deliveries?per_page=500`)
    .set(AUTH)
    .expect(200);
  return res.body.data.deliveries as Array<{
    id: string;
    event_type: string;
    status: string;
    attempts: Array<{ status: number | null; error: string | null }>;
  }>;
}

const typeOf = (received: ReceivedWebhook) => (JSON.parse(received.body) as { type: string }).type;

describe('events (docs/webhooks.md)', () => {
  test('every event type reaches an endpoint of `*` once, signed as Standard Webhooks says', async () => {
    const endpoint = await register();
    const verifier = new Webhook(endpoint.secret);
    const admin = (method: 'post' | 'patch' | 'delete', path: string, body?: object) =>
      system.admin()[method](`/admin/v1${path}`).set(AUTH).send(body);

    // license.created, activation.* and license.updated
    const product = (await admin('post', '/products', { title: 'Hooked' }).expect(201)).body.data;
    const plan = (
      await admin('post', '/plans', {
        name: 'One site',
        activation_type: 'domain',
        activation_limit: 1,
        max_uses: 1,
      }).expect(201)
    ).body.data;
    const bigger = (
      await admin('post', '/plans', {
        name: 'Ten sites',
        activation_type: 'domain',
        activation_limit: 10,
      }).expect(201)
    ).body.data;
    const license = (
      await admin('post', '/licenses', {
        product_id: product.id,
        plan_id: plan.id,
        expires_at: '2030-01-01T00:00:00.000Z',
      }).expect(201)
    ).body.data;
    const key = license.license_key as string;
    const fields = { license_key: key, product_id: product.id };
    expect(
      (await system.post('activate', { ...fields, identifier: 'https://Shop.example/' })).status,
    ).toBe(200);
    expect(
      (await system.post('activate', { ...fields, identifier: 'second.example' })).status,
    ).toBe(403);
    expect(
      (await system.post('deactivate', { ...fields, identifier: 'shop.example' })).status,
    ).toBe(200);
    // usage.limit_reached: the one use the plan allows.
    expect((await system.post('usage', { ...fields, idempotency_key: 'use-1' })).status).toBe(200);
    await admin('patch', `/licenses/${key}`, { activation_limit: 2 }).expect(200);
    await admin('post', `/licenses/${key}/renewals`, {
      expires_at: '2031-01-01T00:00:00.000Z',
      source: 'gateway',
    }).expect(200);
    await admin('post', `/licenses/${key}/plan-change`, { plan_id: bigger.id, when: 'now' }).expect(
      200,
    );
    // license.expired: past its date, then the expiry task.
    await admin('patch', `/licenses/${key}`, { expires_at: '2020-01-01T00:00:00.000Z' }).expect(
      200,
    );
    // license.grace_started: past its date on a plan with grace days, then the same task run.
    const graced = (
      await admin('post', '/plans', {
        name: 'Graced',
        activation_type: 'domain',
        activation_limit: 1,
        grace_days: 7,
      }).expect(201)
    ).body.data;
    await admin('post', '/licenses', {
      product_id: product.id,
      plan_id: graced.id,
      expires_at: new Date(Date.now() - 86_400_000).toISOString(),
    }).expect(201);
    await admin('post', '/jobs/license-expiry').expect(200);
    // version.published and the downloads
    const version = await createVersion(system, product.id, '1.0.0');
    await uploadFile(system, version.id, packageBytes(1000), 'hooked-1.0.0.zip');
    const other = (
      await admin('post', '/licenses', { product_id: product.id, plan_id: plan.id }).expect(201)
    ).body.data;
    expect((await download(system, product.id, { dlid: other.license_key })).status).toBe(200);
    expect((await download(system, product.id, { dlid: 'not-a-key' })).status).toBe(403);
    // After the downloads: at 25 % a key outside the rollout would get no version to download.
    await admin('patch', `/versions/${version.id}`, { rollout_percent: 25 }).expect(200);
    // trial.started, then trial.converted by a paid license activated on its identifier.
    const trialPlan = (
      await admin('post', '/plans', {
        name: 'Trial',
        activation_type: 'domain',
        activation_limit: 1,
        trial_days: 7,
      }).expect(201)
    ).body.data;
    await admin('patch', `/products/${product.id}`, { trial_plan_id: trialPlan.id }).expect(200);
    const trial = await system
      .api()
      .post(`${API_BASE}/trials`)
      .type('form')
      .send(`product_id=${product.id}&identifier=trial.example`);
    expect(trial.status).toBe(201);
    const paid = (
      await admin('post', '/licenses', { product_id: product.id, plan_id: bigger.id }).expect(201)
    ).body.data;
    const converting = { license_key: paid.license_key, product_id: product.id };
    expect(
      (await system.post('activate', { ...converting, identifier: 'trial.example' })).status,
    ).toBe(200);

    const expected = [
      'license.created', // first license
      'activation.created',
      'activation.rejected',
      'activation.deleted',
      'usage.limit_reached',
      'license.updated', // limit
      'license.renewed',
      'license.plan_changed',
      'license.updated', // expiry
      'license.expired',
      'license.created', // the graced license
      'license.grace_started',
      'version.published',
      'version.rollout_changed',
      'license.created', // second license
      'download.served',
      'download.refused',
      'license.created', // the trial license
      'activation.created',
      'trial.started',
      'license.created', // the paid one
      'activation.created',
      'trial.converted',
    ];
    await receiver.waitFor((got) => got.length >= expected.length);
    // Nothing more comes: each event once.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received.map(typeOf).sort()).toEqual([...expected].sort());
    expect(new Set(receiver.received.map(typeOf))).toEqual(new Set(domainEventTypes));
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(expected.length);
    for (const got of receiver.received) {
      expect(got.headers['content-type']).toBe('application/json');
      const payload = verifier.verify(got.body, got.headers) as { type: string; data: object };
      expect(Object.keys(payload)).toEqual(['type', 'timestamp', 'data']);
    }
    const created = receiver.received
      .map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> })
      .find((p) => p.type === 'activation.created')!;
    expect(created.data).toMatchObject({
      license_key: key,
      product_id: product.id,
      identifier: 'shop.example',
      source: 'api',
    });
    await unregister(endpoint.id);
  }, 60_000);

  test('an endpoint gets only the events it asked for', async () => {
    const endpoint = await register(['license.created']);
    await system.license();
    await system.transport.call('update-catalog.createProduct', { title: 'Not asked for' });
    await receiver.waitFor((got) => got.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.received.map(typeOf)).toEqual(['license.created']);
    await unregister(endpoint.id);
  });
});

describe('delivery', () => {
  test('a 503 is retried under the same webhook-id, and the log shows both attempts', async () => {
    const endpoint = await register();
    receiver.answer = (_request, index) => (index === 0 ? 503 : 200);
    const { status } = await system
      .admin()
      .post(`/admin/v1/webhooks/${endpoint.id}/test`)
      .set(AUTH);
    expect(status).toBe(202);
    await receiver.waitFor((got) => got.length >= 2);
    const [first, second] = receiver.received;
    expect(second!.id).toBe(first!.id);
    expect(Number(second!.timestamp)).toBeGreaterThanOrEqual(Number(first!.timestamp));
    await eventually('the delivery is delivered', async () => {
      const [delivery] = await deliveries(endpoint.id);
      return delivery?.status === 'delivered';
    });
    const [delivery] = await deliveries(endpoint.id);
    expect(delivery).toMatchObject({ id: first!.id, event_type: 'webhook.test' });
    expect(delivery!.attempts.map((a) => a.status)).toEqual([503, 200]);
    await unregister(endpoint.id);
  });

  test('an endpoint that never answers fails the attempt after 10 s, and is tried again', async () => {
    const endpoint = await register();
    receiver.answer = (_request, index) => (index === 0 ? 'hang' : 204);
    await system.admin().post(`/admin/v1/webhooks/${endpoint.id}/test`).set(AUTH).expect(202);
    await receiver.waitFor((got) => got.length >= 2, 40_000);
    await eventually('the second attempt is recorded', async () => {
      const [delivery] = await deliveries(endpoint.id);
      return delivery?.status === 'delivered';
    });
    const [delivery] = await deliveries(endpoint.id);
    expect(delivery!.attempts[0]).toMatchObject({ status: null, error: 'no answer within 10 s' });
    expect(delivery!.attempts[1]).toMatchObject({ status: 204 });
    await unregister(endpoint.id);
  }, 60_000);

  test('after the schedule is spent the delivery is failed, and Retry delivers it', async () => {
    const endpoint = await register();
    receiver.answer = () => 500;
    await system.admin().post(`/admin/v1/webhooks/${endpoint.id}/test`).set(AUTH).expect(202);
    await eventually(
      'the delivery failed',
      async () => (await deliveries(endpoint.id))[0]?.status === 'failed',
    );
    expect(receiver.received).toHaveLength(4);
    receiver.answer = () => 200;
    const [failed] = await deliveries(endpoint.id);
    await system
      .admin()
      .post(`/admin/v1/webhooks/${endpoint.id}/deliveries/${failed!.id}/retry`)
      .set(AUTH)
      .expect(200);
    await eventually(
      'the retried delivery is delivered',
      async () => (await deliveries(endpoint.id))[0]?.status === 'delivered',
    );
    expect(receiver.received.map((r) => r.id)).toEqual(Array(5).fill(failed!.id));
    await unregister(endpoint.id);
  });
});

describe('a slow endpoint delays nobody', () => {
  test('a dead endpoint holds at most 4 attempts at once, and another endpoint is still served', async () => {
    const dead = await WebhookReceiver.start();
    dead.answer = () => 'hang';
    try {
      const deadEndpoint = await register(['*'], dead.url);
      const liveEndpoint = await register(['*']);
      for (let i = 0; i < 6; i++) {
        await system
          .admin()
          .post(`/admin/v1/webhooks/${deadEndpoint.id}/test`)
          .set(AUTH)
          .expect(202);
      }
      await dead.waitFor((got) => got.length >= 4);
      await system.admin().post(`/admin/v1/webhooks/${liveEndpoint.id}/test`).set(AUTH).expect(202);
      await receiver.waitFor((got) => got.length >= 1);
      // The fifth attempt to the dead endpoint starts only when one of the first four gave up,
      // after its 10 s; the live endpoint was served before that.
      await dead.waitFor((got) => got.length >= 5, 30_000);
      expect(dead.received[4]!.at - dead.received[0]!.at).toBeGreaterThanOrEqual(9_000);
      expect(receiver.received[0]!.at).toBeLessThan(dead.received[4]!.at);
      await unregister(deadEndpoint.id);
      await unregister(liveEndpoint.id);
    } finally {
      await dead.stop();
    }
  }, 60_000);
});

describe('where webhooks may go (WEBHOOK_ALLOW_PRIVATE_URLS=false)', () => {
  let guarded: TestSystem;
  beforeAll(async () => {
    guarded = await bootSystem();
  }, 60_000);
  afterAll(() => guarded?.stop());

  test.each(['http://localhost:9/hook', 'http://127.0.0.1:9/hook', 'http://169.254.169.254/'])(
    'registering %s is refused with 400 INVALID_REQUEST',
    async (url) => {
      const res = await guarded
        .admin()
        .post('/admin/v1/webhooks')
        .set(AUTH)
        .send({ url, events: ['*'] });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.message).toMatch(/not a public address/);
      const list = await guarded.admin().get('/admin/v1/webhooks').set(AUTH).expect(200);
      expect(list.body.data.webhooks).toEqual([]);
    },
  );

  test('an attempt to a name that resolves to 127.0.0.1 is refused after resolution and sends nothing', async () => {
    const url = receiver.url.replace('127.0.0.1', 'localhost');
    const outcome = await postWebhook(url, {}, '{}', { allowPrivate: false });
    expect(outcome).toMatchObject({
      status: null,
      error: expect.stringMatching(/^refused: .*127\.0\.0\.1|::1/),
    });
    expect(receiver.received).toEqual([]);
    // The same name, allowed, reaches the receiver: the refusal was the address, not the name.
    const allowed = await postWebhook(url, {}, '{}', { allowPrivate: true });
    expect(allowed.status).toBe(204);
  });

  test('bad input is refused in the envelope: not http(s), an unknown event, `*` with others', async () => {
    for (const body of [
      { url: 'ftp://hooks.example/', events: ['*'] },
      { url: '/relative', events: ['*'] },
      { url: 'https://user:pw@hooks.example/', events: ['*'] },
      { url: 'https://hooks.example/', events: ['license.exploded'] },
      { url: 'https://hooks.example/', events: ['*', 'license.created'] },
      { url: 'https://hooks.example/', events: [] },
    ]) {
      const res = await guarded.admin().post('/admin/v1/webhooks').set(AUTH).send(body);
      expect([res.status, res.body.error?.code]).toEqual([400, 'INVALID_REQUEST']);
    }
  });
});

describe('replicas and restarts', () => {
  test('two webhooks replicas send each attempt once', async () => {
    const two = await bootSystem(
      { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '1s' },
      { webhooksReplicas: 2 },
    );
    try {
      const res = await two
        .admin()
        .post('/admin/v1/webhooks')
        .set(AUTH)
        .send({ url: receiver.url, events: ['license.created'] });
      expect(res.status).toBe(201);
      const count = 40;
      for (let i = 0; i < count; i++) await two.license();
      await receiver.waitFor((got) => got.length >= count);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(receiver.received).toHaveLength(count);
      expect(new Set(receiver.received.map((r) => r.id)).size).toBe(count);
    } finally {
      await two.stop();
    }
  }, 60_000);
});
