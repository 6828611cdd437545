import { API_BASE } from '../../libs/contracts/index.js';
import { MAX_STORE_EVENT_BYTES } from '../../libs/contracts/stores/store-connections.js';
import type { StoreProvider } from '../../libs/contracts/stores/store-connections.js';
import { DocumentedCalls, storeEventOperationIds } from '../support/documented-calls.js';
import { eventually } from '../support/eventually.js';
import { fakeBuyerMail, fakeStoreLicenses } from '../support/fake-store-licenses.js';
import { storeFixture } from '../support/store-fixtures.js';
import { SECRET, signedHeaders } from '../support/store-service-harness.js';
import { bootSystem, type TestSystem } from '../support/system.js';

let system: TestSystem;
const licenses = fakeStoreLicenses();
const calls = new DocumentedCalls();
const path = `${API_BASE}/stores/{connection_id}/events`;

beforeAll(async () => {
  system = await bootSystem(
    {},
    { storePorts: { licenses: licenses.port, mail: fakeBuyerMail().mail } },
  );
});
afterAll(() => system?.stop());

async function connect(provider: StoreProvider) {
  return system.transport.call('stores.createConnection', {
    name: `${provider} shop`,
    provider,
    mode: 'live',
    signing_secret: SECRET,
    api_key: null,
    grace_days: 3,
    emails: { created: true, renewed: true, suspended: true, cancelled: true },
  });
}

/** POSTs `body` to the connection's event route as the store does; the answer checked against the document. */
async function post(connectionId: number, body: Buffer, headers: Record<string, string>) {
  const res = await system
    .api()
    .post(`${API_BASE}/stores/${connectionId}/events`)
    .set({ 'Content-Type': 'application/json', ...headers })
    // As text: superagent sends a string as it is, where it would serialise a Buffer as JSON.
    .send(body.toString('utf8'));
  return calls.saw('post', path, res);
}

const events = async (connectionId: number) =>
  (
    await system.transport.call('stores.listEvents', {
      connection_id: connectionId,
      outcome: null,
      page: 1,
      per_page: 50,
    })
  ).events;

const samples = [
  ['stripe', 'invoice-paid-subscription-create'],
  ['paddle', 'transaction-completed-subscription-first'],
  ['lemonsqueezy', 'order_created'],
  ['woocommerce', 'order_processing'],
] as const;

describe('Stores over HTTP: POST {api_base}/stores/:connection_id/events (docs/stores.md)', () => {
  test.each(samples)(
    '%s: an event signed as the store signs it is answered 200 and recorded once',
    async (provider, name) => {
      const connection = await connect(provider);
      const body = storeFixture(provider, name);
      const headers = signedHeaders(provider, body, new Date());
      const first = await post(connection.id, body, headers);
      expect([first.status, first.body]).toEqual([200, { data: { received: 'recorded' } }]);
      const again = await Promise.all([
        post(connection.id, body, headers),
        post(connection.id, body, headers),
      ]);
      expect(again.map((r) => r.body.data.received)).toEqual(['duplicate', 'duplicate']);
      expect(await events(connection.id)).toHaveLength(1);
    },
  );

  test('two deliveries of one event at once are one record', async () => {
    const connection = await connect('paddle');
    const body = storeFixture('paddle', 'subscription-canceled');
    const headers = signedHeaders('paddle', body, new Date());
    const answers = await Promise.all([
      post(connection.id, body, headers),
      post(connection.id, body, headers),
    ]);
    expect(answers.map((r) => r.body.data.received).sort()).toEqual(['duplicate', 'recorded']);
    expect(await events(connection.id)).toHaveLength(1);
  });

  test('a tampered body, a wrong secret and a timestamp over 300 s either way get 400 STORE_SIGNATURE_INVALID, nothing recorded', async () => {
    const connection = await connect('stripe');
    const body = storeFixture('stripe', 'invoice-paid-subscription-create');
    const now = new Date();
    const tampered = Buffer.from(body.toString().replace(/"/, ' "'));
    for (const [sent, headers] of [
      [tampered, signedHeaders('stripe', body, now)],
      [body, signedHeaders('stripe', body, now, 'whsec_someone_elses_secret')],
      [body, signedHeaders('stripe', body, new Date(now.getTime() - 301_000))],
      [body, signedHeaders('stripe', body, new Date(now.getTime() + 3_600_000))],
      [body, signedHeaders('stripe', body, new Date(now.getTime() + 10 * 365 * 86_400_000))],
    ] as const) {
      const res = await post(connection.id, sent, headers);
      expect([res.status, res.body.error.code]).toEqual([400, 'STORE_SIGNATURE_INVALID']);
    }
    expect(await events(connection.id)).toEqual([]);
  });

  test('an unknown connection is 404; a body over the limit is 413', async () => {
    const body = storeFixture('stripe', 'invoice-paid-subscription-create');
    const unknown = await post(999_999, body, signedHeaders('stripe', body, new Date()));
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const connection = await connect('stripe');
    const huge = Buffer.alloc(MAX_STORE_EVENT_BYTES + 1, 0x20);
    const res = await post(connection.id, huge, signedHeaders('stripe', huge, new Date()));
    expect([res.status, res.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });

  test("WooCommerce's ping, sent as a form, is answered ping", async () => {
    const connection = await connect('woocommerce');
    const res = await system
      .api()
      .post(`${API_BASE}/stores/${connection.id}/events`)
      .type('form')
      .send('webhook_id=7');
    calls.saw('post', path, res);
    expect([res.status, res.body]).toEqual([200, { data: { received: 'ping' } }]);
  });

  test('a recorded event is applied after the answer, through the license port', async () => {
    const connection = await connect('paddle');
    await system.transport.call('stores.createMapping', {
      connection_id: connection.id,
      external_id: 'pri_01jdqyq3b5d7f9h1k3m5p7r9ts',
      product_id: 1,
      plan_id: 2,
      renewal: 'gateway',
      duration_days: null,
    });
    const body = storeFixture('paddle', 'transaction-completed-subscription-first');
    await post(connection.id, body, signedHeaders('paddle', body, new Date()));
    await eventually(
      'the event applied',
      async () => (await events(connection.id))[0]?.outcome === 'applied',
    );
    expect((await events(connection.id))[0]!.license_key).toMatch(/^STORE-/);
  });

  test('every documented success of the route was seen above', () => {
    expect(calls.unseenSuccesses(storeEventOperationIds)).toEqual([]);
  });
});
