import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { StoreProvider } from '../../libs/contracts/store-connections.js';
import { eventually } from '../support/eventually.js';
import { mimeBodies, mimeHeader } from '../support/mime-message.js';
import { storeFixture } from '../support/store-fixtures.js';
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
async function shop(provider: StoreProvider, externalId: string) {
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
  await system.transport.call('stores.createMapping', {
    connection_id: connection.id,
    external_id: externalId,
    product_id: product.id,
    plan_id: plan.id,
    renewal: 'gateway',
    duration_days: 365,
  });
  /** Delivers a fixture as the store does, and waits until its event is applied. */
  const deliver = async (name: string) => {
    const body = storeFixture(provider, name);
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
  return { product, plan, connection, deliver, licenses };
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
});
