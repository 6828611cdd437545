import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { StoreProvider } from '../../libs/contracts/store-connections.js';
import { eventually } from '../support/eventually.js';
import { mimeBodies, mimeHeader } from '../support/mime-message.js';
import { editedFixture, storeFixture } from '../support/store-fixtures.js';
import { SECRET, signedHeaders } from '../support/store-service-harness.js';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';

/**
 * docs/stores.md end to end: a store's signed event, POSTed to the gateway, recorded by the
 * stores service, applied through the license service's RPC methods, and the key mailed to the
 * buyer through SMTP_URL, all over real HTTP, RabbitMQ and SMTP.
 */
const mail: string[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      mail.push(Buffer.concat(chunks).toString('utf8'));
      callback();
    });
  },
});

let system: TestSystem;
beforeAll(async () => {
  const port = await new Promise<number>((resolve) =>
    smtp.server.listen(0, '127.0.0.1', () => resolve((smtp.server.address() as AddressInfo).port)),
  );
  system = await bootSystem({ SMTP_URL: `smtp://127.0.0.1:${port}`, STORE_NAME: 'Plugin Shop' });
});
afterAll(async () => {
  await system?.stop();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

/** A connection of `provider` whose `externalId` sells a new product's plan. */
async function shop(provider: StoreProvider, externalId: string, otherIds: string[] = []) {
  const product = await system.transport.call('update-catalog.createProduct', {
    title: `Sold on ${provider}`,
    bundle_items: [],
  });
  const plan = await system.transport.call('license.createPlan', {
    name: `${provider} plan ${Date.now()}`,
    activation_type: 'domain',
    activation_limit: 2,
    lease_seconds: null,
    exempt_identifiers: [],
    exempt_limit: 3,
    entitlements: [],
  });
  const connection = await system.transport.call('stores.createConnection', {
    name: `${provider} shop`,
    provider,
    mode: 'live',
    signing_secret: SECRET,
    api_key: null,
    grace_days: 3,
    emails: { created: true, renewed: true, suspended: true, cancelled: true },
  });
  const map = (external_id: string, plan_id: number) =>
    system.transport.call('stores.createMapping', {
      connection_id: connection.id,
      external_id,
      product_id: product.id,
      plan_id,
      renewal: 'gateway',
      duration_days: 365,
    });
  await map(externalId, plan.id);
  const otherPlans = [];
  for (const id of otherIds) {
    const other = await system.transport.call('license.createPlan', {
      name: `${provider} other plan ${id}`,
      activation_type: 'domain',
      activation_limit: 5,
      lease_seconds: null,
      exempt_identifiers: [],
      exempt_limit: 3,
      entitlements: [],
    });
    await map(id, other.id);
    otherPlans.push(other);
  }
  /** Delivers a fixture as the store does, and waits until its event is applied. */
  const deliver = async (name: string, body = storeFixture(provider, name)) => {
    const res = await system
      .api()
      .post(`${API_BASE}/stores/${connection.id}/events`)
      .set({ 'Content-Type': 'application/json', ...signedHeaders(provider, body, new Date()) })
      .send(body.toString('utf8'));
    expect(res.status).toBe(200);
    const applied = async () => {
      const { events } = await system.transport.call('stores.listEvents', {
        connection_id: connection.id,
        outcome: null,
        page: 1,
        per_page: 50,
      });
      return events.some((e) => e.outcome === 'pending') ? null : events[0]!;
    };
    await eventually(`${name} applied`, async () => (await applied()) !== null);
    return (await applied())!;
  };
  const licenses = async () =>
    (await system.transport.call('license.searchLicenses', { product_id: product.id })).licenses;
  return { product, plan, otherPlans, connection, deliver, licenses };
}

describe('docs/stores.md: a sale becomes a license, end to end', () => {
  test('Lemon Squeezy: a paid order makes one license, the same event three times still one, and the key is mailed', async () => {
    const { deliver, licenses, plan } = await shop('lemonsqueezy', '455');
    const event = await deliver('order_created');
    expect(event).toMatchObject({ outcome: 'applied' });
    await deliver('order_created');
    await deliver('order_created');
    const made = await licenses();
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      plan_id: plan.id,
      status: 'active',
      license_key: event.license_key,
    });
    const letterTo = (address: string) => mail.find((raw) => raw.includes(address));
    await eventually('the e-mail to the buyer', () => letterTo('ada@example.com') !== undefined);
    const letter = letterTo('ada@example.com')!;
    expect(mimeHeader(letter, 'Subject')).toContain('Plugin Shop');
    expect(mimeBodies(letter)['text/plain']).toContain(event.license_key!);
  });

  test("Paddle: a subscription's life on one key, through the license service", async () => {
    const PRICE = 'pri_01jdqyq3b5d7f9h1k3m5p7r9ts';
    const NEW_PRICE = 'pri_01jdqyr8c0e2g4j6l8n0q2s4uw';
    const { deliver, licenses, plan, otherPlans } = await shop('paddle', PRICE, [NEW_PRICE]);
    const detail = async () => {
      const [only, ...more] = await licenses();
      expect(more).toHaveLength(0);
      return system.transport.call('license.getLicense', { license_key: only!.license_key });
    };
    const first = await deliver('transaction-completed-subscription-first');
    expect(first.outcome).toBe('applied');
    expect(await detail()).toMatchObject({
      license_key: first.license_key,
      plan_id: plan.id,
      status: 'active',
      auto_renew: true,
      expires_at: '2027-11-20T10:00:04.771Z',
      store: { subscription_id: 'sub_01jdqz7ew5c9g1j3m5p7r9t1vx' },
    });
    expect((await deliver('subscription-updated-cancel-scheduled')).outcome).toBe('applied');
    expect((await detail()).auto_renew).toBe(false);
    expect((await deliver('subscription-updated-cancel-removed')).outcome).toBe('applied');
    expect((await detail()).auto_renew).toBe(true);
    expect((await deliver('transaction-completed-renewal')).outcome).toBe('applied');
    expect((await detail()).expires_at).toBe('2028-11-20T10:00:04.771Z');
    const moved = await deliver(
      'subscription-updated-price-changed',
      editedFixture('paddle', 'subscription-updated-price-changed', [
        'occurred_at',
        '2027-12-01T00:00:00Z',
      ]),
    );
    expect(moved.outcome).toBe('applied');
    expect((await detail()).plan_id).toBe(otherPlans[0]!.id);
    const ended = await deliver(
      'subscription-canceled',
      editedFixture('paddle', 'subscription-canceled', ['occurred_at', '2027-12-02T00:00:00Z']),
    );
    expect(ended.outcome).toBe('applied');
    expect((await detail()).status).toBe('cancelled');
    const resumed = await deliver(
      'subscription-resumed',
      editedFixture('paddle', 'subscription-resumed', ['occurred_at', '2027-12-03T00:00:00Z']),
    );
    expect(resumed).toMatchObject({ outcome: 'applied', license_key: first.license_key });
    expect((await detail()).status).toBe('active');
  });

  test('Paddle: a refunded renewal takes its period back; a chargeback revokes an order', async () => {
    const PRICE = 'pri_01jdqyq3b5d7f9h1k3m5p7r9ts';
    const ORDER_PRICE = 'pri_01jdqys2d4f6h8k0m2p4r6t8vy';
    const { deliver, licenses } = await shop('paddle', PRICE, [ORDER_PRICE]);
    const first = await deliver('transaction-completed-subscription-first');
    await deliver('transaction-completed-renewal');
    const read = (key: string) => system.transport.call('license.getLicense', { license_key: key });
    expect((await read(first.license_key!)).expires_at).toBe('2028-11-20T10:00:04.771Z');
    expect((await deliver('adjustment-updated-refund-approved')).outcome).toBe('applied');
    // The license ends where the refunded period began (the adjustment's billing period).
    const refunded = await read(first.license_key!);
    expect(refunded.auto_renew).toBe(false);
    expect(Date.parse(refunded.expires_at!)).toBeLessThan(Date.parse('2028-11-20T10:00:04.771Z'));
    const order = await deliver('transaction-completed-order');
    expect(order.outcome).toBe('applied');
    expect(await licenses()).toHaveLength(2);
    expect((await deliver('adjustment-created-chargeback')).outcome).toBe('applied');
    expect((await read(order.license_key!)).status).toBe('revoked');
    expect((await read(first.license_key!)).status).toBe('active');
  });
});
