import { Webhook } from 'standardwebhooks';
import type request from 'supertest';
import type {
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '../../libs/contracts/index.js';
import { ADMIN_TOKEN, adminOf, bootSystem, type TestSystem } from '../support/system.js';
import { WebhookReceiver, type ReceivedWebhook } from '../support/webhook-receiver.js';

/**
 * The management API's webhook routes through real HTTP, on the whole system with its webhooks
 * service: every answer is checked against the OpenAPI document (`system.admin()`), bad input is
 * refused in the error envelope, and what the routes start (a test event, a retry) reaches a
 * receiver on loopback, signed as Standard Webhooks says. The system allows loopback URLs
 * (WEBHOOK_ALLOW_PRIVATE_URLS) and retries once, a second after a failure; a second system with
 * the defaults shows the addresses refused.
 */

const BASE = '/admin/v1';
const AUTH = `Bearer ${ADMIN_TOKEN}`;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const UNKNOWN = 987654321;

let system: TestSystem;
let receiver: WebhookReceiver;
beforeAll(async () => {
  [system, receiver] = await Promise.all([
    bootSystem({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '1s' }),
    WebhookReceiver.start(),
  ]);
});
afterAll(async () => {
  await system?.stop();
  await receiver?.stop();
});

const { get, post, patch, del } = adminOf(() => system);

function expectError(res: request.Response, status: number, code: string) {
  expect([res.status, res.body]).toEqual([
    status,
    { error: expect.objectContaining({ code, message: expect.any(String) }) },
  ]);
}

let seq = 0;
/** A new URL of the receiver (which answers every path), so each endpoint's is its own. */
const hookUrl = () => `${receiver.url}/${++seq}`;

async function createEndpoint(body: Record<string, unknown> = {}) {
  const res = await post('/webhooks', {
    url: hookUrl(),
    events: ['license.created'],
    ...body,
  });
  expect(res.status).toBe(201);
  return res.body.data as WebhookEndpointWithSecret;
}

async function sendTest(endpoint: { id: number }): Promise<WebhookDelivery> {
  const res = await post(`/webhooks/${endpoint.id}/test`);
  expect(res.status).toBe(202);
  return res.body.data as WebhookDelivery;
}

/** The delivery as listed, once `done` accepts it (the sender works in the background). */
async function deliveryWhen(
  delivery: Pick<WebhookDelivery, 'id' | 'endpoint_id'>,
  done: (delivery: WebhookDelivery) => boolean,
  timeoutMs = 15_000,
): Promise<WebhookDelivery> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await get(`/webhooks/${delivery.endpoint_id}/deliveries?per_page=500`);
    expect(res.status).toBe(200);
    const found = (res.body.data.deliveries as WebhookDelivery[]).find((d) => d.id === delivery.id);
    if (found && done(found)) return found;
    if (Date.now() > until) {
      throw new Error(`delivery ${delivery.id} is still ${JSON.stringify(found)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The webhook as the receiver got it, verified with `secret` as a receiver would. */
function verified(webhook: ReceivedWebhook, secret: string): unknown {
  return new Webhook(secret).verify(webhook.body, {
    'webhook-id': webhook.id,
    'webhook-timestamp': webhook.timestamp,
    'webhook-signature': webhook.signature,
  });
}

/** The requests of a delivery `on` got, once there are `count` of them. */
async function attemptsOf(
  id: string,
  count: number,
  on: WebhookReceiver = receiver,
): Promise<ReceivedWebhook[]> {
  const of = (received: ReceivedWebhook[]) => received.filter((webhook) => webhook.id === id);
  await on.waitFor((received) => of(received).length >= count, 15_000);
  return of(on.received);
}

describe('webhook endpoints', () => {
  test('POST creates an endpoint: 201 with Location and its secret, which GET and the list never show', async () => {
    const url = hookUrl();
    const res = await post('/webhooks', {
      url,
      events: ['license.created', 'activation.created'],
      description: 'CRM sync',
    });
    expect(res.status).toBe(201);
    const created = res.body.data as WebhookEndpointWithSecret;
    expect(res.headers.location).toBe(`${BASE}/webhooks/${created.id}`);
    expect(created).toMatchObject({
      url,
      events: ['license.created', 'activation.created'],
      description: 'CRM sync',
      enabled: true,
      disabled_reason: null,
      failing_since: null,
      secret_rotated_at: null,
    });
    expect(created.secret).toMatch(SECRET);

    const shown = await get(`/webhooks/${created.id}`);
    expect(shown.status).toBe(200);
    const { secret: _secret, ...withoutSecret } = created;
    expect(shown.body.data).toEqual(withoutSecret);
    expect(shown.text).not.toContain(created.secret);

    const list = await get('/webhooks');
    expect(list.status).toBe(200);
    expect(list.body.data.webhooks).toContainEqual(withoutSecret);
    expect(list.text).not.toContain(created.secret);
  });

  test('every event, as `*`, and no description (null) are taken', async () => {
    const all = await createEndpoint({ events: ['*'] });
    expect(all).toMatchObject({ events: ['*'], description: null });
  });

  test('bad input is refused with 400 INVALID_REQUEST in the envelope', async () => {
    const url = receiver.url;
    const bodies: unknown[] = [
      {},
      { events: ['license.created'] },
      { url },
      { url, events: [] },
      { url, events: ['license.deleted'] },
      { url, events: ['webhook.test'] },
      { url, events: ['*', 'license.created'] },
      { url, events: ['license.created', 'license.created'] },
      { url: 'ftp://hooks.example.com/x', events: ['*'] },
      { url: 'hooks.example.com/x', events: ['*'] },
      { url: 'https://user:pass@hooks.example.com/x', events: ['*'] },
      { url: `https://hooks.example.com/${'x'.repeat(2048)}`, events: ['*'] },
      { url, events: ['*'], description: 'd'.repeat(256) },
      { url, events: ['*'], secret: 'whsec_mine' },
      { url, events: 'license.created' },
    ];
    for (const body of bodies) {
      const res = await post('/webhooks', body);
      expect([body, res.status, res.body.error?.code]).toEqual([body, 400, 'INVALID_REQUEST']);
    }
    const notJson = await system
      .admin()
      .post(`${BASE}/webhooks`)
      .set('Authorization', AUTH)
      .set('Content-Type', 'application/json')
      .send('{"url":');
    expectError(notJson, 400, 'INVALID_REQUEST');
  });

  test('GET of an unknown endpoint is 404 NOT_FOUND; a malformed id is 400', async () => {
    expectError(await get(`/webhooks/${UNKNOWN}`), 404, 'NOT_FOUND');
    for (const id of ['0', 'abc', '-1', '1.5']) {
      expectError(await get(`/webhooks/${id}`), 400, 'INVALID_REQUEST');
    }
  });

  test('PATCH changes the URL, events, description and enabled; at least one field', async () => {
    const endpoint = await createEndpoint({ description: 'before' });
    const moved = hookUrl();
    const res = await patch(`/webhooks/${endpoint.id}`, {
      url: moved,
      events: ['license.expired', 'license.renewed'],
      description: null,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: endpoint.id,
      url: moved,
      events: ['license.expired', 'license.renewed'],
      description: null,
      enabled: true,
    });
    expect(res.text).not.toContain('whsec_');

    const disabled = await patch(`/webhooks/${endpoint.id}`, { enabled: false });
    expect(disabled.status).toBe(200);
    expect(disabled.body.data).toMatchObject({ enabled: false, disabled_reason: 'admin' });
    const enabled = await patch(`/webhooks/${endpoint.id}`, { enabled: true });
    expect(enabled.body.data).toMatchObject({ enabled: true, disabled_reason: null });

    for (const body of [{}, { secret: 'x' }, { events: [] }, { enabled: 'yes' }, { id: 2 }]) {
      const refused = await patch(`/webhooks/${endpoint.id}`, body);
      expect([body, refused.status, refused.body.error?.code]).toEqual([
        body,
        400,
        'INVALID_REQUEST',
      ]);
    }
    expectError(await patch(`/webhooks/${UNKNOWN}`, { enabled: false }), 404, 'NOT_FOUND');
  });

  test('DELETE answers 200 with the removed endpoint, as the other removals do; it and its deliveries are gone', async () => {
    const endpoint = await createEndpoint();
    await sendTest(endpoint);
    const res = await del(`/webhooks/${endpoint.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: endpoint.id, url: endpoint.url });
    expect(res.body.data.secret).toBeUndefined();
    expectError(await get(`/webhooks/${endpoint.id}`), 404, 'NOT_FOUND');
    expectError(await get(`/webhooks/${endpoint.id}/deliveries`), 404, 'NOT_FOUND');
    expectError(await del(`/webhooks/${endpoint.id}`), 404, 'NOT_FOUND');
    expectError(await del('/webhooks/0'), 400, 'INVALID_REQUEST');
    const list = await get('/webhooks');
    expect(list.body.data.webhooks.map((w: WebhookEndpoint) => w.id)).not.toContain(endpoint.id);
  });
});

describe('deliveries', () => {
  test('POST /test answers 202 with the delivery queued; the receiver gets it signed with the secret, and it is listed as delivered', async () => {
    const endpoint = await createEndpoint();
    const queued = await sendTest(endpoint);
    expect(queued).toMatchObject({
      endpoint_id: endpoint.id,
      event_type: 'webhook.test',
      status: 'pending',
      attempts: [],
    });
    expect(queued.id).toMatch(/^msg_/);
    expect(JSON.parse(queued.payload)).toMatchObject({ type: 'webhook.test' });

    const [webhook] = await attemptsOf(queued.id, 1);
    expect(webhook!.body).toBe(queued.payload);
    expect(verified(webhook!, endpoint.secret)).toMatchObject({ type: 'webhook.test' });

    const delivered = await deliveryWhen(queued, (d) => d.status === 'delivered');
    expect(delivered.next_attempt_at).toBeNull();
    expect(delivered.attempts).toEqual([
      {
        at: expect.any(String),
        status: 204,
        error: null,
        duration_ms: expect.any(Number),
        response: null,
      },
    ]);
    expectError(await post(`/webhooks/${UNKNOWN}/test`), 404, 'NOT_FOUND');
  });

  test('after POST /secret the new secret signs, and the one before still does (for 24 hours)', async () => {
    const endpoint = await createEndpoint();
    const res = await post(`/webhooks/${endpoint.id}/secret`);
    expect(res.status).toBe(200);
    const rotated = res.body.data as WebhookEndpointWithSecret;
    expect(rotated.secret).toMatch(SECRET);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(rotated.secret_rotated_at).toEqual(expect.any(String));
    const shown = await get(`/webhooks/${endpoint.id}`);
    expect(shown.text).not.toContain(rotated.secret);
    expect(shown.body.data.secret_rotated_at).toBe(rotated.secret_rotated_at);

    const [webhook] = await attemptsOf((await sendTest(endpoint)).id, 1);
    expect(verified(webhook!, rotated.secret)).toMatchObject({ type: 'webhook.test' });
    expect(verified(webhook!, endpoint.secret)).toMatchObject({ type: 'webhook.test' });
    expectError(await post(`/webhooks/${UNKNOWN}/secret`), 404, 'NOT_FOUND');
  });

  test('a delivery that failed is tried again by POST .../retry: 200 with it pending again, the same id, then delivered', async () => {
    // A receiver of its own, unavailable until the test says otherwise.
    const flaky = await WebhookReceiver.start();
    let available = false;
    flaky.answer = () => (available ? 204 : 503);
    try {
      const endpoint = await createEndpoint({ url: flaky.url });
      const queued = await sendTest(endpoint);
      // The first attempt and the one retry of the schedule (a second later) both fail.
      const failed = await deliveryWhen(queued, (d) => d.status === 'failed');
      expect(failed.attempts.map((a) => [a.status, a.error])).toEqual([
        [503, null],
        [503, null],
      ]);
      expect(failed.attempts[0]!.response).toBe('answered 503');
      expect(failed.next_attempt_at).toBeNull();
      const failing = (await get(`/webhooks/${endpoint.id}`)).body.data as WebhookEndpoint;
      // Failing since its first failed attempt (as it ended), before the second one began.
      expect(failing.enabled).toBe(true);
      const since = Date.parse(failing.failing_since!);
      expect(since).toBeGreaterThanOrEqual(Date.parse(failed.attempts[0]!.at));
      expect(since).toBeLessThan(Date.parse(failed.attempts[1]!.at));

      available = true;
      const res = await post(`/webhooks/${endpoint.id}/deliveries/${queued.id}/retry`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id: queued.id, status: 'pending' });
      const delivered = await deliveryWhen(queued, (d) => d.status === 'delivered');
      expect(delivered.attempts.map((a) => a.status)).toEqual([503, 503, 204]);
      // Three requests, all under the delivery's id.
      expect(await attemptsOf(queued.id, 3, flaky)).toHaveLength(3);
      expect(flaky.received.map((webhook) => webhook.id)).toEqual([
        queued.id,
        queued.id,
        queued.id,
      ]);
      const healthy = (await get(`/webhooks/${endpoint.id}`)).body.data as WebhookEndpoint;
      expect(healthy.failing_since).toBeNull();
    } finally {
      await flaky.stop();
    }
  });

  test('a disabled endpoint gets nothing: its test event waits, and is sent once it is enabled', async () => {
    const endpoint = await createEndpoint();
    await patch(`/webhooks/${endpoint.id}`, { enabled: false });
    const queued = await sendTest(endpoint);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received.filter((webhook) => webhook.id === queued.id)).toEqual([]);
    expect((await deliveryWhen(queued, () => true)).status).toBe('pending');
    await patch(`/webhooks/${endpoint.id}`, { enabled: true });
    await attemptsOf(queued.id, 1);
    await deliveryWhen(queued, (d) => d.status === 'delivered');
  });

  test('deliveries are listed newest first, paged and filtered by status; a bad query is 400', async () => {
    const endpoint = await createEndpoint();
    const sent: WebhookDelivery[] = [];
    for (let i = 0; i < 3; i++) sent.push(await sendTest(endpoint));
    for (const delivery of sent) await deliveryWhen(delivery, (d) => d.status === 'delivered');
    const first = await get(`/webhooks/${endpoint.id}/deliveries?page=1&per_page=2`);
    expect(first.body.data).toMatchObject({ page: 1, per_page: 2, total: 3 });
    const second = await get(`/webhooks/${endpoint.id}/deliveries?page=2&per_page=2`);
    expect(second.body.data).toMatchObject({ page: 2, per_page: 2, total: 3 });
    const listed = [...first.body.data.deliveries, ...second.body.data.deliveries].map(
      (d: WebhookDelivery) => d.id,
    );
    expect(listed).toEqual(sent.map((d) => d.id).reverse());

    const all = await get(`/webhooks/${endpoint.id}/deliveries?status=&page=&per_page=`);
    expect(all.body.data).toMatchObject({ page: 1, per_page: 50, total: 3 });
    const delivered = await get(`/webhooks/${endpoint.id}/deliveries?status=delivered`);
    expect(delivered.body.data.total).toBe(3);
    for (const status of ['pending', 'failed']) {
      const none = await get(`/webhooks/${endpoint.id}/deliveries?status=${status}`);
      expect(none.body.data).toMatchObject({ deliveries: [], total: 0 });
    }

    for (const query of [
      'status=lost',
      'page=0',
      'per_page=0',
      'per_page=501',
      'page=10001',
      'page=x',
      'unknown=1',
      'status=failed&status=pending',
      'endpoint_id=2',
    ]) {
      const res = await get(`/webhooks/${endpoint.id}/deliveries?${query}`);
      expect([query, res.status, res.body.error?.code]).toEqual([query, 400, 'INVALID_REQUEST']);
    }
    expectError(await get(`/webhooks/${UNKNOWN}/deliveries`), 404, 'NOT_FOUND');
    expectError(await get('/webhooks/x/deliveries'), 400, 'INVALID_REQUEST');
  });

  test('a retry of an unknown delivery, or of another endpoint’s, is 404; a malformed id is 400', async () => {
    const endpoint = await createEndpoint();
    const delivery = await sendTest(endpoint);
    const other = await createEndpoint();
    for (const path of [
      `/webhooks/${endpoint.id}/deliveries/msg_unknown/retry`,
      `/webhooks/${other.id}/deliveries/${delivery.id}/retry`,
      `/webhooks/${UNKNOWN}/deliveries/${delivery.id}/retry`,
    ]) {
      expectError(await post(path), 404, 'NOT_FOUND');
    }
    for (const path of [
      `/webhooks/${endpoint.id}/deliveries/not-a-delivery/retry`,
      `/webhooks/${endpoint.id}/deliveries/msg_${'x'.repeat(65)}/retry`,
      `/webhooks/0/deliveries/${delivery.id}/retry`,
    ]) {
      expectError(await post(path), 400, 'INVALID_REQUEST');
    }
  });
});

describe('with the default settings', () => {
  let strict: TestSystem;
  beforeAll(async () => {
    strict = await bootSystem();
  });
  afterAll(() => strict?.stop());
  const api = adminOf(() => strict);
  /** A public address, given literally so that nothing is resolved; nothing is sent to it. */
  const PUBLIC = 'https://93.184.215.14/hooks';

  test('loopback, private, link-local and metadata addresses are refused: 400 INVALID_REQUEST', async () => {
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://[::1]/hook',
      'http://10.1.2.3/hook',
      'http://192.168.0.10/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:127.0.0.1]/hook',
    ]) {
      const res = await api.post('/webhooks', { url, events: ['*'] });
      expect([url, res.status, res.body.error?.code]).toEqual([url, 400, 'INVALID_REQUEST']);
    }
    const created = await api.post('/webhooks', { url: PUBLIC, events: ['*'] });
    expect(created.status).toBe(201);
    const moved = await api.patch(`/webhooks/${created.body.data.id}`, {
      url: 'http://127.0.0.1/hook',
    });
    expectError(moved, 400, 'INVALID_REQUEST');
    await api.del(`/webhooks/${created.body.data.id}`);
  });

  test('at most 50 endpoints: the 51st is refused with 400 INVALID_REQUEST', async () => {
    const have = (await api.get('/webhooks')).body.data.webhooks.length as number;
    for (let i = have; i < 50; i++) {
      const res = await api.post('/webhooks', { url: `${PUBLIC}/${i}`, events: ['*'] });
      expect(res.status).toBe(201);
    }
    const refused = await api.post('/webhooks', { url: `${PUBLIC}/51`, events: ['*'] });
    expectError(refused, 400, 'INVALID_REQUEST');
    expect(refused.body.error.message).toMatch(/50/);
  });
});
