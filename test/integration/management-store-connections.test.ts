import { createHmac } from 'node:crypto';
import type request from 'supertest';
import type { StoreEventRecord } from '../../libs/contracts/stores/received-store-events.js';
import type { StoreMapping } from '../../libs/contracts/stores/store-connections.js';
import type { StoreConnectionView } from '../../libs/contracts/stores/store-connection-views.js';
import type { AdminWithToken } from '../../libs/contracts/index.js';
import { managementOpenApi } from '../../services/management/openapi.js';
import { DocumentedCalls, storeOperationIds } from '../support/documented-calls.js';
import { eventually } from '../support/eventually.js';
import type { Doc, Method } from '../support/openapi-documents.js';
import { storeFixture } from '../support/store-fixtures.js';
import { ADMIN_TOKEN, bootSystem, type TestSystem } from '../support/system.js';

/**
 * The management API's store routes (docs/stores.md, "Admin API") through real HTTP and the
 * message bus, on the whole system with its stores service: every answer is checked against the
 * OpenAPI document, and each documented success is seen here (`storeOperationIds`). A store's
 * delivery is handed to the stores service as the gateway hands it (`stores.receiveEvent`).
 */

const PUBLIC_URL = 'https://licensing.example.com';
const EVENTS_URL = `${PUBLIC_URL}/api/index.php/v1/licensing/stores`;
const SIGNING_SECRET = 'lemon-signing-secret-0123456789';
const NEW_SECRET = 'lemon-rotated-secret-9876543210';
const API_KEY = 'ls_api_key-0123456789abcdef';
const SECRETS = [SIGNING_SECRET, NEW_SECRET, API_KEY];
const UNKNOWN = 987654321;
const CONNECTIONS = '/admin/v1/store-connections';
const CONNECTION = '/admin/v1/store-connections/{id}';
const MAPPINGS = '/admin/v1/store-connections/{id}/mappings';
const MAPPING = '/admin/v1/store-mappings/{id}';
const EVENTS = '/admin/v1/store-events';
const EVENT = '/admin/v1/store-events/{id}';
const APPLY = '/admin/v1/store-events/{id}/apply';

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem({ PUBLIC_URL });
});
afterAll(() => system?.stop());

const calls = new DocumentedCalls(managementOpenApi as unknown as Doc);
/** Every answer, to check that no secret is in any. */
const answers: request.Response[] = [];

/** A call of the management API; the status it must answer, counted for its template. */
async function call(
  method: Method,
  template: string,
  status: number,
  options: { id?: number; body?: object; query?: string; token?: string } = {},
): Promise<request.Response> {
  const path =
    template.replace('{id}', String(options.id ?? UNKNOWN)) +
    (options.query ? `?${options.query}` : '');
  const agent = system.admin();
  let req = agent[method](path).set('Authorization', `Bearer ${options.token ?? ADMIN_TOKEN}`);
  if (options.body !== undefined) req = req.send(options.body);
  const res = await req;
  expect([`${method} ${path}`, res.status, res.body]).toEqual([
    `${method} ${path}`,
    status,
    res.body,
  ]);
  if (status >= 400) {
    expect(res.body).toEqual({ error: expect.objectContaining({ code: expect.any(String) }) });
  }
  answers.push(res);
  return calls.saw(method, template, res);
}

const lemonSqueezy = {
  name: 'Lemon shop',
  provider: 'lemonsqueezy',
  mode: 'live',
  signing_secret: SIGNING_SECRET,
};

async function connect(body: object = lemonSqueezy): Promise<StoreConnectionView> {
  return (await call('post', CONNECTIONS, 201, { body })).body.data as StoreConnectionView;
}

/** A Lemon Squeezy delivery, signed with `secret`, handed over as the gateway does. */
function deliver(connectionId: number, body: Buffer, secret = SIGNING_SECRET) {
  return system.transport.call('stores.receiveEvent', {
    connection_id: connectionId,
    body: body.toString('base64'),
    headers: {
      'x-signature': createHmac('sha256', secret).update(body).digest('hex'),
      'x-event-name': 'order_created',
    },
  });
}

async function eventWhen(
  connectionId: number,
  done: (event: StoreEventRecord) => boolean,
): Promise<StoreEventRecord> {
  let found: StoreEventRecord | undefined;
  await eventually(`an event of connection ${connectionId} as expected`, async () => {
    const res = await call('get', EVENTS, 200, { query: `connection_id=${connectionId}` });
    found = (res.body.data.events as StoreEventRecord[]).find(done);
    return found !== undefined;
  });
  return found!;
}

describe('store connections: the events URL in every answer, never a secret', () => {
  test('made (201, Location), listed, read, its secret replaced, removed; bad input changes nothing', async () => {
    const made = await connect({ ...lemonSqueezy, api_key: API_KEY, grace_days: 5 });
    expect(made).toMatchObject({ api_key_set: true, grace_days: 5, secret_rotated_at: null });
    expect(made.events_url).toBe(`${EVENTS_URL}/${made.id}/events`);
    expect(answers.at(-1)!.headers.location).toBe(`${CONNECTIONS}/${made.id}`);

    const before = (await call('get', CONNECTIONS, 200)).body.data;
    for (const body of [
      { ...lemonSqueezy, provider: 'gumroad' },
      { ...lemonSqueezy, signing_secret: 'with a space' },
      { ...lemonSqueezy, grace_days: 61 },
      { ...lemonSqueezy, unknown: true },
    ]) {
      await call('post', CONNECTIONS, 400, { body });
    }
    await call('patch', CONNECTION, 400, { id: made.id, body: {} });
    await call('patch', CONNECTION, 400, { id: made.id, body: { provider: 'paddle' } });
    expect((await call('get', CONNECTIONS, 200)).body.data).toEqual(before);
    expect(before.connections).toContainEqual(made);

    expect((await call('get', CONNECTION, 200, { id: made.id })).body.data).toEqual(made);
    await call('get', CONNECTION, 404);
    await call('get', '/admin/v1/store-connections/x', 400);
    const rotated = (
      await call('patch', CONNECTION, 200, {
        id: made.id,
        body: { signing_secret: NEW_SECRET, api_key: null, name: 'Lemon shop (live)' },
      })
    ).body.data as StoreConnectionView;
    expect(rotated).toMatchObject({
      name: 'Lemon shop (live)',
      api_key_set: false,
      secret_rotated_at: expect.any(String),
      events_url: made.events_url,
    });
    await call('patch', CONNECTION, 404, { body: { name: 'x' } });
    expect((await call('delete', CONNECTION, 200, { id: made.id })).body.data.id).toBe(made.id);
    await call('delete', CONNECTION, 404, { id: made.id });
    await call('delete', '/admin/v1/store-connections/0', 400);

    const audit = await system
      .admin()
      .get(`/admin/v1/audit-log?target=store-connection:${made.id}`)
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    answers.push(audit);
    expect(audit.body.data.entries.map((entry: { action: string }) => entry.action)).toEqual([
      'deleteStoreConnection',
      'updateStoreConnection',
      'createStoreConnection',
    ]);
    for (const res of answers) {
      for (const secret of SECRETS) expect(JSON.stringify(res.body)).not.toContain(secret);
    }
  });

  test('a delivery signed with the secret before a rotation is still taken, as the docs say', async () => {
    const made = await connect();
    await call('patch', CONNECTION, 200, { id: made.id, body: { signing_secret: NEW_SECRET } });
    expect(await deliver(made.id, storeFixture('lemonsqueezy', 'order_created'))).toEqual({
      received: 'recorded',
    });
  });
});

describe('mappings: a store id to a product and plan', () => {
  test('made (201, Location), listed, changed, removed; one per id; gone with the connection', async () => {
    const { product, plan } = await system.license();
    const connection = await connect();
    const body = { external_id: '455', product_id: product.id, plan_id: plan.id };
    const made = (await call('post', MAPPINGS, 201, { id: connection.id, body })).body
      .data as StoreMapping;
    expect(made).toMatchObject({ ...body, connection_id: connection.id, renewal: 'gateway' });
    expect(answers.at(-1)!.headers.location).toBe(`/admin/v1/store-mappings/${made.id}`);
    await call('post', MAPPINGS, 409, { id: connection.id, body });
    await call('post', MAPPINGS, 404, { body });
    await call('post', MAPPINGS, 400, { id: connection.id, body: { ...body, external_id: 'a b' } });
    await call('post', MAPPINGS, 400, { id: connection.id, body: { ...body, connection_id: 1 } });
    expect((await call('get', MAPPINGS, 200, { id: connection.id })).body.data.mappings).toEqual([
      made,
    ]);
    await call('get', MAPPINGS, 404);
    const changed = await call('patch', MAPPING, 200, {
      id: made.id,
      body: { renewal: 'checkout', duration_days: 365 },
    });
    expect(changed.body.data).toMatchObject({ renewal: 'checkout', duration_days: 365 });
    await call('patch', MAPPING, 400, { id: made.id, body: {} });
    await call('patch', MAPPING, 404, { body: { duration_days: null } });
    await call('delete', MAPPING, 200, { id: made.id });
    await call('delete', MAPPING, 404, { id: made.id });

    const again = (await call('post', MAPPINGS, 201, { id: connection.id, body })).body.data;
    await call('delete', CONNECTION, 200, { id: connection.id });
    await call('delete', MAPPING, 404, { id: again.id });
  });
});

describe('received events: filtered, read, applied again', () => {
  test('an unmapped order is listed by connection and outcome and applied again; others are refused', async () => {
    const connection = await connect();
    const other = await connect();
    await deliver(connection.id, storeFixture('lemonsqueezy', 'order_created'));
    const unmapped = await eventWhen(connection.id, (event) => event.outcome === 'unmapped');
    expect(unmapped).toMatchObject({ type: 'order_created', external_ids: ['455'] });

    const filtered = await call('get', EVENTS, 200, {
      query: `connection_id=${connection.id}&outcome=unmapped&page=1&per_page=5`,
    });
    expect(filtered.body.data).toMatchObject({ page: 1, per_page: 5, total: 1 });
    expect(
      (await call('get', EVENTS, 200, { query: `connection_id=${other.id}` })).body.data.total,
    ).toBe(0);
    await call('get', EVENTS, 400, { query: 'outcome=lost' });
    await call('get', EVENTS, 400, { query: 'per_page=501' });
    expect((await call('get', EVENT, 200, { id: unmapped.id })).body.data).toEqual(unmapped);
    await call('get', EVENT, 404);
    await call('get', '/admin/v1/store-events/x', 400);

    // Support may apply an event again; a viewer may read but not.
    const token = async (role: string) =>
      (
        (
          await system
            .admin()
            .post('/admin/v1/admins')
            .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
            .send({ name: role, role })
        ).body.data as AdminWithToken
      ).token;
    const viewer = await token('viewer');
    await call('get', EVENT, 200, { id: unmapped.id, token: viewer });
    await call('post', APPLY, 403, { id: unmapped.id, token: viewer });
    const applied = await call('post', APPLY, 200, {
      id: unmapped.id,
      token: await token('support'),
    });
    expect(applied.body.data).toMatchObject({ id: unmapped.id, outcome: 'pending' });
    await call('post', APPLY, 404);

    // Not JSON: unreadable, which applying again cannot change.
    const garbage = Buffer.from('{"meta": "not an event"}');
    await deliver(other.id, garbage);
    const unreadable = await eventWhen(other.id, (event) => event.outcome === 'unreadable');
    await call('post', APPLY, 409, { id: unreadable.id });
  });
});

test('each documented success of the store routes was seen above', () => {
  expect(calls.unseenSuccesses(storeOperationIds)).toEqual([]);
});
