import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { StoreProvider } from '../../libs/contracts/stores/store-connections.js';
import { eventually } from './eventually.js';
import { mimeBodies, mimeHeader } from './mime-message.js';
import { storeFixture } from './store-fixtures.js';
import { SECRET, signedHeaders } from './store-service-harness.js';
import { API_BASE, bootSystem, type TestSystem } from './system.js';

/**
 * docs/stores.md end to end: a whole system whose stores service mails buyers over SMTP to a
 * server on loopback that keeps each message, and sweeps for past-due grace often, so a test
 * waits for a suspension instead of a minute. `settings`: more of the system's settings, such as
 * the stores' APIs on loopback (STRIPE_API_URL).
 */
export async function startStoreSales(options: { settings?: Record<string, string> } = {}) {
  const letters: string[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        letters.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve) =>
    smtp.server.listen(0, '127.0.0.1', () => resolve((smtp.server.address() as AddressInfo).port)),
  );
  const stopSmtp = () => new Promise<void>((resolve) => smtp.close(() => resolve()));
  let system: TestSystem;
  try {
    system = await bootSystem(
      { ...options.settings, SMTP_URL: `smtp://127.0.0.1:${port}`, STORE_NAME: 'Plugin Shop' },
      { storeGraceSweepMs: 100 },
    );
  } catch (error) {
    await stopSmtp();
    throw error;
  }
  return {
    system,
    letters,
    /** Waits for the letter that gives `licenseKey` under a subject saying `subject`. */
    async letterAbout(licenseKey: string, subject: string) {
      const find = () =>
        letters.find(
          (raw) =>
            mimeHeader(raw, 'Subject')?.includes(subject) &&
            mimeBodies(raw)['text/plain']?.includes(licenseKey),
        );
      await eventually(`a letter "${subject}" with the key`, () => find() !== undefined);
      return find()!;
    },
    shop: (provider: StoreProvider, externalId: string, settings: ShopSettings = {}) =>
      openShop(system, provider, externalId, settings),
    async stop() {
      await system.stop();
      await stopSmtp();
    },
  };
}
export type StoreSales = Awaited<ReturnType<typeof startStoreSales>>;

export interface ShopSettings {
  /** Further store ids, each mapped to a plan of its own (5 activations). */
  otherIds?: string[];
  /** How the mappings' renewals reach the license (spec 3.3). */
  renewal?: 'gateway' | 'checkout';
  /** The mappings' duration of a one-off order's license; 365 days unless given. */
  durationDays?: number | null;
  graceDays?: number;
  /** The connection's API key: Stripe's reads a Checkout Session's items, Paddle's the buyer. */
  apiKey?: string | null;
}

let plans = 0;

/** A connection of `provider` whose `externalId` sells a new product's plan (2 activations). */
async function openShop(
  system: TestSystem,
  provider: StoreProvider,
  externalId: string,
  settings: ShopSettings,
) {
  const { transport } = system;
  const product = await transport.call('update-catalog.createProduct', {
    title: `Sold on ${provider}`,
    bundle_items: [],
  });
  const newPlan = (activation_limit: number) =>
    transport.call('license.createPlan', {
      name: `${provider} plan ${Date.now()}-${++plans}`,
      activation_type: 'domain',
      activation_limit,
      lease_seconds: null,
      exempt_identifiers: [],
      exempt_limit: 3,
      entitlements: [],
    });
  const connection = await transport.call('stores.createConnection', {
    name: `${provider} shop`,
    provider,
    mode: 'live',
    signing_secret: SECRET,
    api_key: settings.apiKey ?? null,
    grace_days: settings.graceDays ?? 3,
    emails: { created: true, renewed: true, suspended: true, cancelled: true },
  });
  const map = (external_id: string, plan_id: number) =>
    transport.call('stores.createMapping', {
      connection_id: connection.id,
      external_id,
      product_id: product.id,
      plan_id,
      renewal: settings.renewal ?? 'gateway',
      duration_days: settings.durationDays === undefined ? 365 : settings.durationDays,
    });
  const plan = await newPlan(2);
  await map(externalId, plan.id);
  const otherPlans = [];
  for (const id of settings.otherIds ?? []) {
    const other = await newPlan(5);
    await map(id, other.id);
    otherPlans.push(other);
  }
  const events = async () =>
    (
      await transport.call('stores.listEvents', {
        connection_id: connection.id,
        outcome: null,
        page: 1,
        per_page: 50,
      })
    ).events;
  const send = async (body: Buffer, wooTopic?: string) => {
    const res = await system
      .api()
      .post(`${API_BASE}/stores/${connection.id}/events`)
      .set({
        'Content-Type': 'application/json',
        ...signedHeaders(provider, body, new Date(), SECRET, wooTopic),
      })
      .send(body.toString('utf8'));
    expect(res.status).toBe(200);
  };
  const licenses = async () =>
    (await transport.call('license.searchLicenses', { product_id: product.id })).licenses;
  const read = (licenseKey: string) =>
    transport.call('license.getLicense', { license_key: licenseKey });
  return {
    product,
    plan,
    otherPlans,
    connection,
    /**
     * Delivers a fixture as the store does (signed now; WooCommerce's under `wooTopic`) over
     * HTTP, and waits until nothing of the connection is pending: the newest event, applied.
     */
    async deliver(name: string, body = storeFixture(provider, name), wooTopic?: string) {
      await send(body, wooTopic);
      const settled = async () => {
        const all = await events();
        return all.some((e) => e.outcome === 'pending') ? null : all[0]!;
      };
      await eventually(`${name} applied`, async () => (await settled()) !== null);
      return (await settled())!;
    },
    /** Delivers a fixture as `deliver` does, without waiting for it to be applied. */
    send: (name: string, body = storeFixture(provider, name)) => send(body),
    events,
    licenses,
    read,
    /** The one license the shop's sales made, in full. */
    async only() {
      const [license, ...more] = await licenses();
      expect(more).toHaveLength(0);
      return read(license!.license_key);
    },
  };
}
export type Shop = Awaited<ReturnType<typeof openShop>>;

const DAY_MS = 86_400_000;
/** `days` before now (negative: after), for events whose time matters to the grace sweep. */
export const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);
