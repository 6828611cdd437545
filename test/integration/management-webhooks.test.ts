import type request from 'supertest';
import type {
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '../../libs/contracts/index.js';
import { serveFakeWebhooks } from '../support/fake-webhooks.js';
import { ADMIN_TOKEN, bootSystem, type TestSystem } from '../support/system.js';

/**
 * The management API's webhook routes through real HTTP: every answer is checked against the
 * OpenAPI document (`system.admin()`), bad input is refused in the error envelope before any
 * service is asked, and the webhooks service's refusals reach the admin with their status.
 */

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
  await serveFakeWebhooks(system.transport);
});
afterAll(() => system?.stop());

const BASE = '/admin/v1';
const AUTH = `Bearer ${ADMIN_TOKEN}`;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;

const get = (path: string) =>
  system
    .admin()
    .get(BASE + path)
    .set('Authorization', AUTH);
const post = (path: string, body?: unknown) => {
  const req = system
    .admin()
    .post(BASE + path)
    .set('Authorization', AUTH);
  return body === undefined ? req : req.send(body as object);
};
const patch = (path: string, body: unknown) =>
  system
    .admin()
    .patch(BASE + path)
    .set('Authorization', AUTH)
    .send(body as object);
const del = (path: string) =>
  system
    .admin()
    .delete(BASE + path)
    .set('Authorization', AUTH);

function expectError(res: request.Response, status: number, code: string) {
  expect([res.status, res.body]).toEqual([
    status,
    { error: expect.objectContaining({ code, message: expect.any(String) }) },
  ]);
}

let seq = 0;
async function createEndpoint(body: Record<string, unknown> = {}) {
  const res = await post('/webhooks', {
    url: `https://hooks.example.com/licensing/${++seq}`,
    events: ['license.created'],
    ...body,
  });
  expect(res.status).toBe(201);
  return res.body.data as WebhookEndpointWithSecret;
}

describe('webhook endpoints', () => {
  test('POST creates an endpoint: 201 with Location and its secret, which GET and the list never show', async () => {
    const res = await post('/webhooks', {
      url: 'https://hooks.example.com/licensing',
      events: ['license.created', 'activation.created'],
      description: 'CRM sync',
    });
    expect(res.status).toBe(201);
    const created = res.body.data as WebhookEndpointWithSecret;
    expect(res.headers.location).toBe(`${BASE}/webhooks/${created.id}`);
    expect(created).toMatchObject({
      url: 'https://hooks.example.com/licensing',
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
    const url = 'https://hooks.example.com/x';
    const bodies: unknown[] = [
      {},
      { events: ['license.created'] },
      { url },
      { url, events: [] },
      { url, events: ['license.deleted'] },
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

  test('a loopback URL is refused by the service: 400 INVALID_REQUEST', async () => {
    for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost/hook']) {
      expectError(await post('/webhooks', { url, events: ['*'] }), 400, 'INVALID_REQUEST');
    }
    const endpoint = await createEndpoint();
    expectError(
      await patch(`/webhooks/${endpoint.id}`, { url: 'http://127.0.0.1/hook' }),
      400,
      'INVALID_REQUEST',
    );
  });

  test('GET of an unknown endpoint is 404 NOT_FOUND; a malformed id is 400', async () => {
    expectError(await get('/webhooks/987654321'), 404, 'NOT_FOUND');
    for (const id of ['0', 'abc', '-1', '1.5']) {
      expectError(await get(`/webhooks/${id}`), 400, 'INVALID_REQUEST');
    }
  });

  test('PATCH changes the URL, events, description and enabled; at least one field', async () => {
    const endpoint = await createEndpoint({ description: 'before' });
    const res = await patch(`/webhooks/${endpoint.id}`, {
      url: 'https://hooks.example.com/moved',
      events: ['license.expired', 'license.renewed'],
      description: null,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: endpoint.id,
      url: 'https://hooks.example.com/moved',
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

    expectError(await patch(`/webhooks/${endpoint.id}`, {}), 400, 'INVALID_REQUEST');
    expectError(await patch(`/webhooks/${endpoint.id}`, { secret: 'x' }), 400, 'INVALID_REQUEST');
    expectError(await patch(`/webhooks/${endpoint.id}`, { events: [] }), 400, 'INVALID_REQUEST');
    expectError(
      await patch(`/webhooks/${endpoint.id}`, { enabled: 'yes' }),
      400,
      'INVALID_REQUEST',
    );
    expectError(await patch('/webhooks/987654321', { enabled: false }), 404, 'NOT_FOUND');
  });

  test('DELETE answers 200 with the removed endpoint, as the other removals do; it is gone', async () => {
    const endpoint = await createEndpoint();
    const res = await del(`/webhooks/${endpoint.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: endpoint.id, url: endpoint.url });
    expect(res.body.data.secret).toBeUndefined();
    expectError(await get(`/webhooks/${endpoint.id}`), 404, 'NOT_FOUND');
    expectError(await del(`/webhooks/${endpoint.id}`), 404, 'NOT_FOUND');
    expectError(await del('/webhooks/0'), 400, 'INVALID_REQUEST');
    const list = await get('/webhooks');
    expect(list.body.data.webhooks.map((w: WebhookEndpoint) => w.id)).not.toContain(endpoint.id);
  });

  test('POST /secret answers a new secret, once, and the time of the rotation', async () => {
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
    expectError(await post('/webhooks/987654321/secret'), 404, 'NOT_FOUND');
  });
});

describe('deliveries', () => {
  test('POST /test queues a webhook.test delivery: 202 with the delivery, listed with the others', async () => {
    const endpoint = await createEndpoint();
    const res = await post(`/webhooks/${endpoint.id}/test`);
    expect(res.status).toBe(202);
    const delivery = res.body.data as WebhookDelivery;
    expect(delivery).toMatchObject({ endpoint_id: endpoint.id, event_type: 'webhook.test' });
    expect(delivery.id).toMatch(/^msg_/);
    expect(JSON.parse(delivery.payload)).toMatchObject({ type: 'webhook.test' });

    const list = await get(`/webhooks/${endpoint.id}/deliveries`);
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ page: 1, per_page: 50, total: 1 });
    expect(list.body.data.deliveries.map((d: WebhookDelivery) => d.id)).toEqual([delivery.id]);
    expectError(await post('/webhooks/987654321/test'), 404, 'NOT_FOUND');
  });

  test('deliveries are paged and filtered by status; a bad query is 400', async () => {
    const endpoint = await createEndpoint();
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) {
      sent.push(((await post(`/webhooks/${endpoint.id}/test`)).body.data as WebhookDelivery).id);
    }
    const first = await get(`/webhooks/${endpoint.id}/deliveries?page=1&per_page=2`);
    expect(first.body.data).toMatchObject({ page: 1, per_page: 2, total: 3 });
    expect(first.body.data.deliveries).toHaveLength(2);
    const second = await get(`/webhooks/${endpoint.id}/deliveries?page=2&per_page=2`);
    expect(second.body.data.deliveries).toHaveLength(1);
    const seen = [...first.body.data.deliveries, ...second.body.data.deliveries].map(
      (d: WebhookDelivery) => d.id,
    );
    expect(seen.sort()).toEqual([...sent].sort());

    const all = await get(`/webhooks/${endpoint.id}/deliveries?status=&page=&per_page=`);
    expect(all.body.data.total).toBe(3);
    for (const status of ['pending', 'delivered', 'failed'] as const) {
      const filtered = await get(`/webhooks/${endpoint.id}/deliveries?status=${status}`);
      expect(filtered.status).toBe(200);
      for (const delivery of filtered.body.data.deliveries as WebhookDelivery[]) {
        expect(delivery.status).toBe(status);
      }
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
    ]) {
      const res = await get(`/webhooks/${endpoint.id}/deliveries?${query}`);
      expect([query, res.status, res.body.error?.code]).toEqual([query, 400, 'INVALID_REQUEST']);
    }
    expectError(await get('/webhooks/987654321/deliveries'), 404, 'NOT_FOUND');
  });

  test('POST .../retry answers the delivery, with the same id; unknown ones are 404, malformed 400', async () => {
    const endpoint = await createEndpoint();
    const delivery = (await post(`/webhooks/${endpoint.id}/test`)).body.data as WebhookDelivery;
    const res = await post(`/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: delivery.id, endpoint_id: endpoint.id });

    expectError(
      await post(`/webhooks/${endpoint.id}/deliveries/msg_unknown/retry`),
      404,
      'NOT_FOUND',
    );
    const other = await createEndpoint();
    expectError(
      await post(`/webhooks/${other.id}/deliveries/${delivery.id}/retry`),
      404,
      'NOT_FOUND',
    );
    expectError(
      await post(`/webhooks/987654321/deliveries/${delivery.id}/retry`),
      404,
      'NOT_FOUND',
    );
    expectError(
      await post(`/webhooks/${endpoint.id}/deliveries/not-a-delivery/retry`),
      400,
      'INVALID_REQUEST',
    );
  });
});
