import { randomBytes } from 'node:crypto';
import { domainEvent, type AuditEntry } from '../../libs/contracts/index.js';
import type { StoreEventRecord } from '../../libs/contracts/stores/received-store-events.js';
import type { StoreProvider } from '../../libs/contracts/stores/store-connections.js';
import { keyFingerprint } from '../../libs/logging/index.js';
import { metrics } from '../../libs/observability/index.js';
import { eventually } from '../support/eventually.js';
import { AUTH } from '../support/packages.js';
import { storeFixture } from '../support/store-fixtures.js';
import { SECRET, signedHeaders } from '../support/store-service-harness.js';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * docs/stores.md, "The audit log": a store's signed event, POSTed to the gateway and applied by
 * the stores service, ends in the management service's audit log as one entry per license change,
 * its source the store's event, through the `store.licenses_changed` domain event over RabbitMQ;
 * the same event delivered again writes nothing twice, and no webhook endpoint receives it.
 */

let system: TestSystem;
let receiver: WebhookReceiver;
/** An endpoint of `*`: every event an endpoint may ask for. */
let hookId: number;
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  system = await bootSystem({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  const hook = await system
    .admin()
    .post('/admin/v1/webhooks')
    .set(AUTH)
    .send({ url: receiver.url, events: ['*'] });
  expect(hook.status).toBe(201);
  hookId = hook.body.data.id as number;
}, 60_000);
afterAll(async () => {
  await system?.stop();
  await receiver?.stop();
});

async function auditLog(query: string): Promise<AuditEntry[]> {
  const res = await system.admin().get(`/admin/v1/audit-log?per_page=100&${query}`).set(AUTH);
  expect(res.status).toBe(200);
  return res.body.data.entries as AuditEntry[];
}

const licenseTarget = (key: string) => encodeURIComponent(`license:${keyFingerprint(key)}`);

/** A connection of `provider` whose `externalId` sells a new product's plan. */
async function shop(provider: StoreProvider, externalId: string) {
  const product = await system.transport.call('update-catalog.createProduct', {
    title: `Audited on ${provider}`,
    bundle_items: [],
  });
  const plan = await system.transport.call('license.createPlan', {
    name: `${provider} audited plan ${Date.now()}`,
    activation_type: 'domain',
    activation_limit: 2,
    lease_seconds: null,
    exempt_identifiers: [],
    exempt_limit: 3,
    entitlements: [],
  });
  const connection = await system.transport.call('stores.createConnection', {
    name: `${provider} audited shop`,
    provider,
    mode: 'live',
    signing_secret: SECRET,
    api_key: null,
    grace_days: 3,
    emails: { created: false, renewed: false, suspended: false, cancelled: false },
  });
  await system.transport.call('stores.createMapping', {
    connection_id: connection.id,
    external_id: externalId,
    product_id: product.id,
    plan_id: plan.id,
    renewal: 'gateway',
    duration_days: 365,
  });
  /** Delivers a fixture through the gateway as the store does; answers the event once applied. */
  const deliver = async (name: string): Promise<StoreEventRecord> => {
    const body = storeFixture(provider, name);
    const res = await system
      .api()
      .post(`${API_BASE}/stores/${connection.id}/events`)
      .set({ 'Content-Type': 'application/json', ...signedHeaders(provider, body, new Date()) })
      .send(body.toString('utf8'));
    expect(res.status).toBe(200);
    let newest: StoreEventRecord | undefined;
    await eventually(`${name} applied`, async () => {
      const { events } = await system.transport.call('stores.listEvents', {
        connection_id: connection.id,
        outcome: null,
        page: 1,
        per_page: 50,
      });
      newest = events[0];
      return events.every((e) => e.outcome !== 'pending');
    });
    return newest!;
  };
  return { product, plan, connection, deliver };
}

/** How many domain events one consumer has handled, and all published, in this process. */
async function consumed(consumer: 'audit' | 'webhooks'): Promise<number> {
  const { values } = await metrics.domainEventsConsumed.get();
  return values
    .filter((v) => v.labels.consumer === consumer && v.labels.outcome === 'ok')
    .reduce((sum, v) => sum + v.value, 0);
}
async function published(): Promise<number> {
  const { values } = await metrics.domainEventsPublished.get();
  return values.filter((v) => v.labels.outcome === 'confirmed').reduce((s, v) => s + v.value, 0);
}

describe("a store's license changes in the audit log, the store's event as their source", () => {
  test('a paid order delivered through the gateway: a createLicense entry naming the connection and the event, no admin', async () => {
    const { product, plan, connection, deliver } = await shop('lemonsqueezy', '455');
    const event = await deliver('order_created');
    expect(event.outcome).toBe('applied');
    const key = event.license_key!;
    let entries: AuditEntry[] = [];
    await eventually('the entry written', async () => {
      entries = await auditLog(`source=store_event&target=${licenseTarget(key)}`);
      return entries.length > 0;
    });
    expect(entries).toEqual([
      {
        id: expect.any(String),
        at: expect.any(String),
        admin: null,
        source: {
          kind: 'store_event',
          connection: {
            id: connection.id,
            name: 'lemonsqueezy audited shop',
            provider: 'lemonsqueezy',
          },
          event: { id: event.id, event_id: event.event_id, type: event.type, kind: 'order_paid' },
        },
        action: 'createLicense',
        target: `license:${keyFingerprint(key)}`,
        before: null,
        after: expect.objectContaining({
          license_key: keyFingerprint(key),
          product_id: product.id,
          plan_id: plan.id,
          status: 'active',
          store: expect.objectContaining({ connection_id: connection.id }),
        }),
      },
    ]);
    expect(JSON.stringify(await auditLog(`target=${licenseTarget(key)}`))).not.toContain(key);
    // Not an admin's: the admin filter does not find it, the source filter does.
    expect(await auditLog(`source=admin&target=${licenseTarget(key)}`)).toEqual([]);
    expect(await auditLog(`admin=0&target=${licenseTarget(key)}`)).toEqual([]);
    // The CSV: no admin, the source's kind and what it names.
    const csv = await system
      .admin()
      .get(`/admin/v1/audit-log.csv?source=store_event&target=${licenseTarget(key)}`)
      .set(AUTH)
      .buffer(true);
    const [, line] = csv.text.trimEnd().split('\r\n');
    expect(line).toMatch(/^[^,]+,,,createLicense,license:key#[0-9a-f]+,,/);
    expect(line).toContain(`,store_event,"{""connection"":{""id"":${connection.id},`);

    // The license.created webhook is sent as usual; the audit log's event never is, though the
    // endpoint asked for every event: once the webhooks service took all that was published,
    // its deliveries are written.
    await eventually('every event published taken by the webhooks service', async () => {
      return (await consumed('webhooks')) >= (await published());
    });
    const res = await system
      .admin()
      .get(`/admin/v1/webhooks/${hookId}/deliveries?per_page=500`)
      .set(AUTH);
    const types = (res.body.data.deliveries as Array<{ event_type: string }>).map(
      (d) => d.event_type,
    );
    expect(types).toContain('license.created');
    expect(types).not.toContain('store.licenses_changed');
  });

  test("a subscription's cancellation at period end: an updateLicense entry with the fields it moved", async () => {
    const { deliver } = await shop('paddle', 'pri_01jdqyq3b5d7f9h1k3m5p7r9ts');
    const first = await deliver('transaction-completed-subscription-first');
    const cancel = await deliver('subscription-updated-cancel-scheduled');
    expect(cancel.outcome).toBe('applied');
    const target = licenseTarget(first.license_key!);
    let entries: AuditEntry[] = [];
    await eventually('both entries written', async () => {
      entries = await auditLog(`source=store_event&target=${target}`);
      return entries.length === 2;
    });
    const [cancelled, created] = entries;
    expect(created).toMatchObject({ action: 'createLicense', source: { event: { id: first.id } } });
    expect(cancelled).toMatchObject({
      action: 'updateLicense',
      source: { kind: 'store_event', event: { id: cancel.id, kind: 'cancel_scheduled' } },
      before: { auto_renew: true },
      after: { auto_renew: false },
    });
    expect(Object.keys(cancelled!.after!)).not.toContain('status');
  });

  test('the same domain event delivered twice writes its entries once', async () => {
    const key = `AUDIT-${randomBytes(8).toString('hex')}`;
    const event = domainEvent(
      'store.licenses_changed',
      {
        connection: { id: 99, name: 'Replayed shop', provider: 'paddle' },
        store_event: { id: 7, event_id: 'evt_replayed', type: 'subscription.canceled', kind: 'x' },
        changes: [
          {
            action: 'updateLicense',
            license_key: key,
            before: { status: 'active' },
            after: { status: 'cancelled' },
          },
          {
            action: 'updateLicense',
            license_key: key,
            before: { auto_renew: true },
            after: { auto_renew: false },
          },
        ],
      },
      new Date(),
    );
    const handled = await consumed('audit');
    system.transport.publishDomainEvent(event);
    system.transport.publishDomainEvent(event);
    await eventually(
      'both deliveries handled',
      async () => (await consumed('audit')) >= handled + 2,
    );
    const entries = await auditLog(`target=${licenseTarget(key)}`);
    expect(entries.map((e) => e.after)).toEqual([{ auto_renew: false }, { status: 'cancelled' }]);
  });
});
