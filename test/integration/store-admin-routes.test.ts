import request from 'supertest';
import type { AdminWithToken } from '../../libs/contracts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { InProcessBus, InProcessTransport } from '../../libs/transport/index.js';
import { fakeStoresService } from '../support/fake-stores-service.js';
import { managementApp, TEST_ADMIN_TOKEN } from '../support/management-app.js';
import { checkedAgainst, documents, type Doc } from '../support/openapi-documents.js';

/**
 * What the management API adds to the stores service's methods (docs/stores.md, "Admin API"),
 * over an in-process bus with a stand-in of that service: the events URL of each connection,
 * secrets in no answer and no audit entry, the roles, and bad input refused before any call.
 * test/integration/management-store-connections.test.ts runs the routes on the whole system.
 */

const PUBLIC_URL = 'https://licensing.example.com/';
const EVENTS = 'https://licensing.example.com/api/index.php/v1/licensing/stores';
const SIGNING_SECRET = 'whsec_fake-signing-secret-0123456789';
const NEW_SECRET = 'whsec_fake-rotated-secret-9876543210';
const API_KEY = 'sk_test_fake-api-key-0123456789';
const BASE = '/admin/v1';
const managementDocument = documents[1]!.doc as Doc;

const logger = createLogger('store-admin-routes', 'silent');

/** `publicUrl` null: PUBLIC_URL unset. */
function setUp(publicUrl: string | null = PUBLIC_URL) {
  const bus = new InProcessBus();
  const service = fakeStoresService();
  bus.register('stores', service.handlers);
  const transport = new InProcessTransport(bus, { timeoutMs: 5000, logger });
  const app = managementApp(transport, { publicUrl: publicUrl ?? undefined });
  const as = (token: string) => {
    const agent = checkedAgainst(managementDocument, request(app));
    const auth = `Bearer ${token}`;
    return {
      get: (path: string) => agent.get(BASE + path).set('Authorization', auth),
      post: (path: string, body?: object) =>
        agent
          .post(BASE + path)
          .set('Authorization', auth)
          .send(body ?? {}),
      patch: (path: string, body: object) =>
        agent
          .patch(BASE + path)
          .set('Authorization', auth)
          .send(body),
      del: (path: string) => agent.delete(BASE + path).set('Authorization', auth),
    };
  };
  return { service, transport, owner: as(TEST_ADMIN_TOKEN), as };
}

const connectionBody = {
  name: 'Main shop',
  provider: 'stripe',
  mode: 'live',
  signing_secret: SIGNING_SECRET,
  api_key: API_KEY,
};

function expectError(res: request.Response, status: number, code: string) {
  expect([res.status, res.body]).toEqual([
    status,
    { error: expect.objectContaining({ code, message: expect.any(String) }) },
  ]);
}

describe('a connection answers the URL to paste into the store', () => {
  test('made: 201, its Location, events_url at PUBLIC_URL; the same URL in every answer', async () => {
    const { owner, transport } = setUp();
    const made = await owner.post('/store-connections', connectionBody);
    expect(made.status).toBe(201);
    const id = made.body.data.id as number;
    expect(made.headers.location).toBe(`${BASE}/store-connections/${id}`);
    expect(made.body.data.events_url).toBe(`${EVENTS}/${id}/events`);
    const listed = await owner.get('/store-connections');
    expect(listed.body.data.connections[0].events_url).toBe(`${EVENTS}/${id}/events`);
    const read = await owner.get(`/store-connections/${id}`);
    expect(read.body.data.events_url).toBe(`${EVENTS}/${id}/events`);
    await transport.close();
  });

  test('without PUBLIC_URL, the path alone', async () => {
    const { owner, transport } = setUp(null);
    const made = await owner.post('/store-connections', connectionBody);
    expect(made.body.data.events_url).toBe(
      `/api/index.php/v1/licensing/stores/${made.body.data.id}/events`,
    );
    await transport.close();
  });
});

describe('secrets: kept by the stores service, in no answer and no audit entry', () => {
  test('a signing secret and API key made, rotated and removed never come back', async () => {
    const { owner, service, transport } = setUp();
    const answers: request.Response[] = [];
    const made = await owner.post('/store-connections', connectionBody);
    const id = made.body.data.id as number;
    answers.push(made);
    answers.push(await owner.get('/store-connections'));
    answers.push(await owner.get(`/store-connections/${id}`));
    const rotated = await owner.patch(`/store-connections/${id}`, {
      signing_secret: NEW_SECRET,
      api_key: null,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data).toMatchObject({
      api_key_set: false,
      secret_rotated_at: expect.any(String),
    });
    answers.push(rotated);
    answers.push(await owner.del(`/store-connections/${id}`));
    // The service was given them: it is the answers that leave them out.
    expect(service.secrets.get(id)).toEqual([SIGNING_SECRET, API_KEY, NEW_SECRET]);
    const audit = await owner.get('/audit-log?per_page=500');
    expect(audit.status).toBe(200);
    const actions = audit.body.data.entries.map((entry: { action: string }) => entry.action);
    expect(actions).toEqual([
      'deleteStoreConnection',
      'updateStoreConnection',
      'createStoreConnection',
    ]);
    expect(audit.body.data.entries[1]).toMatchObject({
      target: `store-connection:${id}`,
      after: { api_key_set: false, secret_rotated_at: expect.any(String) },
    });
    for (const res of [...answers, audit]) {
      for (const secret of [SIGNING_SECRET, NEW_SECRET, API_KEY]) {
        expect(JSON.stringify(res.body)).not.toContain(secret);
      }
    }
    await transport.close();
  });
});

describe('bad input gets the error envelope and reaches no service', () => {
  test.each([
    ['an unknown provider', { ...connectionBody, provider: 'gumroad' }],
    ['a secret with a space', { ...connectionBody, signing_secret: 'whsec_ with space' }],
    ['a short secret', { ...connectionBody, signing_secret: 'short' }],
    ['no secret', { name: 'x', provider: 'paddle', mode: 'test' }],
    ['grace days over 60', { ...connectionBody, grace_days: 61 }],
    ['an unknown field', { ...connectionBody, secret: 'x' }],
    ['an unknown e-mail switch', { ...connectionBody, emails: { refunded: true } }],
  ])('a connection with %s', async (_name, body) => {
    const { owner, service, transport } = setUp();
    expectError(await owner.post('/store-connections', body), 400, 'INVALID_REQUEST');
    expect(service.calls).toEqual([]);
    await transport.close();
  });

  test('an empty or wrong patch, a malformed id, a bad mapping or event query', async () => {
    const { owner, service, transport } = setUp();
    expectError(await owner.patch('/store-connections/1', {}), 400, 'INVALID_REQUEST');
    expectError(
      await owner.patch('/store-connections/1', { provider: 'paddle' }),
      400,
      'INVALID_REQUEST',
    );
    expectError(await owner.get('/store-connections/x'), 400, 'INVALID_REQUEST');
    const mapping = { external_id: 'price_1', product_id: 1, plan_id: 1 };
    for (const body of [
      { ...mapping, external_id: 'price 1' },
      { ...mapping, product_id: 0 },
      { ...mapping, renewal: 'manual' },
      { ...mapping, connection_id: 2 },
    ]) {
      expectError(await owner.post('/store-connections/1/mappings', body), 400, 'INVALID_REQUEST');
    }
    expectError(await owner.patch('/store-mappings/1', {}), 400, 'INVALID_REQUEST');
    for (const query of ['outcome=lost', 'connection_id=0', 'page=0', 'per_page=501', 'x=1']) {
      expectError(await owner.get(`/store-events?${query}`), 400, 'INVALID_REQUEST');
    }
    expect(service.calls).toEqual([]);
    await transport.close();
  });
});

describe('mappings and events, as the stores service answers them', () => {
  test('a mapping made (201, Location), listed, changed and removed, each change audited', async () => {
    const { owner, transport } = setUp();
    const id = (await owner.post('/store-connections', connectionBody)).body.data.id as number;
    const made = await owner.post(`/store-connections/${id}/mappings`, {
      external_id: 'price_1',
      product_id: 4,
      plan_id: 5,
    });
    expect(made.status).toBe(201);
    const mappingId = made.body.data.id as number;
    expect(made.headers.location).toBe(`${BASE}/store-mappings/${mappingId}`);
    expect(made.body.data).toMatchObject({
      connection_id: id,
      renewal: 'gateway',
      duration_days: null,
    });
    const listed = await owner.get(`/store-connections/${id}/mappings`);
    expect(listed.body.data.mappings).toEqual([made.body.data]);
    const changed = await owner.patch(`/store-mappings/${mappingId}`, { plan_id: 6 });
    expect(changed.body.data.plan_id).toBe(6);
    expect((await owner.del(`/store-mappings/${mappingId}`)).status).toBe(200);
    expectError(await owner.del(`/store-mappings/${mappingId}`), 404, 'NOT_FOUND');
    const audit = await owner.get('/audit-log?target=store-mapping');
    expect(
      audit.body.data.entries.map((e: { action: string; target: string }) => [e.action, e.target]),
    ).toEqual([
      ['deleteStoreMapping', `store-mapping:${mappingId}`],
      ['updateStoreMapping', `store-mapping:${mappingId}`],
      ['createStoreMapping', `store-mapping:${mappingId}`],
    ]);
    await transport.close();
  });

  test('events filtered by connection and outcome, a page at a time; a failed one applied again', async () => {
    const { owner, service, transport } = setUp();
    const failed = service.receive(1, 'failed');
    service.receive(2, 'failed');
    const applied = service.receive(1, 'applied');
    const page = await owner.get('/store-events?connection_id=1&outcome=failed&per_page=10');
    expect(page.body.data).toMatchObject({ page: 1, per_page: 10, total: 1 });
    expect(page.body.data.events.map((e: { id: number }) => e.id)).toEqual([failed.id]);
    expect(service.calls.at(-1)?.request).toEqual({
      connection_id: 1,
      outcome: 'failed',
      page: 1,
      per_page: 10,
    });
    const again = await owner.post(`/store-events/${failed.id}/apply`);
    expect([again.status, again.body.data.outcome]).toEqual([200, 'pending']);
    expectError(
      await owner.post(`/store-events/${applied.id}/apply`),
      409,
      'STORE_EVENT_NOT_RETRYABLE',
    );
    const audit = await owner.get('/audit-log?action=applyStoreEventAgain');
    expect(audit.body.data.entries).toEqual([
      expect.objectContaining({ target: `store-event:${failed.id}` }),
    ]);
    await transport.close();
  });
});

describe('roles: connections and mappings an owner’s, events read by all, applied again by support', () => {
  test.each([
    ['viewer', { list: 200, events: 200, create: 403, map: 403, apply: 403 }],
    ['support', { list: 200, events: 200, create: 403, map: 403, apply: 200 }],
    ['owner', { list: 200, events: 200, create: 201, map: 201, apply: 200 }],
  ] as const)('%s', async (role, expected) => {
    const { owner, as, service, transport } = setUp();
    const connection = (await owner.post('/store-connections', connectionBody)).body.data;
    const event = service.receive(connection.id, 'unmapped');
    const admin = (await owner.post('/admins', { name: role, role })).body.data as AdminWithToken;
    const caller = as(admin.token);
    const statuses = {
      list: (await caller.get('/store-connections')).status,
      events: (await caller.get('/store-events')).status,
      create: (await caller.post('/store-connections', connectionBody)).status,
      map: (
        await caller.post(`/store-connections/${connection.id}/mappings`, {
          external_id: 'price_1',
          product_id: 1,
          plan_id: 1,
        })
      ).status,
      apply: (await caller.post(`/store-events/${event.id}/apply`)).status,
    };
    expect(statuses).toEqual(expected);
    await transport.close();
  });
});
