import { storeFixture, editedFixture } from '../../support/store-fixtures.js';
import { SECRET, signedHeaders, storeServiceHarness } from '../../support/store-service-harness.js';
import { waitingCall } from '../../support/license-handler-harness.js';

const PRICE = 'pri_01jdqyq3b5d7f9h1k3m5p7r9ts';
const NEW_PRICE = 'pri_01jdqyr8c0e2g4j6l8n0q2s4uw';
const ORDER_PRICE = 'pri_01jdqys2d4f6h8k0m2p4r6t8vy';

/** A Paddle connection with its prices mapped, and a helper that delivers and applies a fixture. */
async function paddleShop(graceDays = 3) {
  const h = storeServiceHarness();
  const connection = await h.connect('paddle', { grace_days: graceDays });
  await h.map(connection.id, PRICE, 20);
  await h.map(connection.id, NEW_PRICE, 30);
  await h.map(connection.id, ORDER_PRICE, 40, 365);
  const apply = async (name: string, body = storeFixture('paddle', name)) => {
    await h.deliver(connection, body);
    while (await h.applier.applyNext());
    return h.stores.allEvents().at(-1)!;
  };
  return { h, connection, apply };
}

describe('Stores: each event does to the license what docs/stores.md says (the table)', () => {
  test("a subscription's first payment creates its license once, renewing automatically", async () => {
    const { h, apply } = await paddleShop();
    const event = await apply('transaction-completed-subscription-first');
    expect(event).toMatchObject({ outcome: 'applied', license_key: 'STORE-1', attempts: 1 });
    expect(event.applied_at).toEqual(h.clock());
    const [license] = h.licenses.all();
    expect(license).toMatchObject({ plan_id: 20, product_id: 10, auto_renew: true });
    expect(license!.store.subscription_id).toBe('sub_01jdqz7ew5c9g1j3m5p7r9t1vx');
    expect(event.mail).toMatchObject([{ moment: 'created', outcome: 'sent' }]);
  });

  test('a one-off order creates a license expiring after the mapping’s duration', async () => {
    const { h, apply } = await paddleShop();
    const event = await apply('transaction-completed-order');
    expect(event.outcome).toBe('applied');
    const [license] = h.licenses.all();
    expect(license).toMatchObject({ plan_id: 40, auto_renew: false });
    expect(license!.expires_at).not.toBeNull();
  });

  test('cancelled at period end turns auto-renewal off; withdrawn turns it on', async () => {
    const { h, apply } = await paddleShop();
    await apply('transaction-completed-subscription-first');
    await apply('subscription-updated-cancel-scheduled');
    expect(h.licenses.get('STORE-1')).toMatchObject({ status: 'active', auto_renew: false });
    await apply('subscription-updated-cancel-removed');
    expect(h.licenses.get('STORE-1')).toMatchObject({ auto_renew: true });
  });

  test('moved to another price: the same key on the mapped plan', async () => {
    const { h, apply } = await paddleShop();
    await apply('transaction-completed-subscription-first');
    expect((await apply('subscription-updated-price-changed')).outcome).toBe('applied');
    expect(h.licenses.get('STORE-1')!.plan_id).toBe(30);
    expect(h.licenses.all()).toHaveLength(1);
  });

  test('a payment failed marks it past due once; paid again clears it and renews', async () => {
    const { h, apply } = await paddleShop();
    await apply('transaction-completed-subscription-first');
    expect((await apply('transaction-payment-failed-renewal')).outcome).toBe('applied');
    const link = await h.stores.links.find(1, {
      order_id: null,
      subscription_id: 'sub_01jdqz7ew5c9g1j3m5p7r9t1vx',
    });
    expect(link!.past_due_since).not.toBeNull();
    expect(await apply('subscription-past-due')).toMatchObject({
      outcome: 'no_change',
      detail: 'already past due',
    });
    const renewed = await apply('transaction-completed-renewal');
    expect(renewed.outcome).toBe('applied');
    expect(h.licenses.changes()).toContain('renew');
    expect(renewed.mail.map((m) => m.moment)).toEqual(['renewed']);
    const after = await h.stores.links.find(1, {
      order_id: null,
      subscription_id: 'sub_01jdqz7ew5c9g1j3m5p7r9t1vx',
    });
    expect(after!.past_due_since).toBeNull();
  });

  test('an event older than the last one applied is stale and changes nothing', async () => {
    const { h, apply } = await paddleShop();
    await apply('transaction-completed-subscription-first');
    await apply('transaction-completed-renewal');
    const before = h.licenses.changes().length;
    // Cancelled at 10:00:04, before the renewal of 10:01:02 that was applied.
    expect((await apply('subscription-canceled')).outcome).toBe('stale');
    expect(h.licenses.changes()).toHaveLength(before);
  });

  test('the subscription ended: cancelled, renewing no more, and the buyer told', async () => {
    const { h, apply } = await paddleShop();
    await apply('transaction-completed-subscription-first');
    const ended = await apply('subscription-canceled');
    expect(ended.outcome).toBe('applied');
    expect(h.licenses.get('STORE-1')).toMatchObject({
      status: 'cancelled',
      auto_renew: false,
      next_payment_at: null,
    });
    expect(ended.mail.map((m) => m.moment)).toEqual(['cancelled']);
  });

  test('a resumption brings back the same key, active: never a second license', async () => {
    const { h, apply } = await paddleShop();
    await apply('transaction-completed-subscription-first');
    await apply('subscription-canceled');
    const resumed = await apply(
      'subscription-resumed',
      editedFixture('paddle', 'subscription-resumed', ['occurred_at', '2027-12-01T00:00:00Z']),
    );
    expect(resumed).toMatchObject({ outcome: 'applied', license_key: 'STORE-1' });
    expect(h.licenses.get('STORE-1')!.status).toBe('active');
    expect(h.licenses.all()).toHaveLength(1);
  });

  test('a refunded renewal takes its period back; a chargeback of an order revokes it', async () => {
    const { h, apply } = await paddleShop();
    await apply('transaction-completed-subscription-first');
    await apply('transaction-completed-renewal');
    const expiry = h.licenses.get('STORE-1')!.expires_at!;
    expect((await apply('adjustment-updated-refund-approved')).outcome).toBe('applied');
    expect(h.licenses.get('STORE-1')!.expires_at!.getTime()).toBeLessThan(expiry.getTime());
    expect(h.licenses.get('STORE-1')!.auto_renew).toBe(false);
    await apply('transaction-completed-order');
    expect((await apply('adjustment-created-chargeback')).outcome).toBe('applied');
    expect(h.licenses.get('STORE-2')!.status).toBe('revoked');
  });

  test('a pending refund changes nothing; an id no mapping names is unmapped until mapped', async () => {
    const { h, connection, apply } = await paddleShop();
    await apply('transaction-completed-subscription-first');
    expect((await apply('adjustment-created-refund-pending')).outcome).toBe('no_change');
    const unmapped = await apply(
      'transaction-completed-order',
      editedFixture('paddle', 'transaction-completed-order', [
        'data.items.0.price.id',
        'pri_not_mapped',
      ]),
    );
    expect(unmapped).toMatchObject({ outcome: 'unmapped', license_key: null });
    await h.map(connection.id, 'pri_not_mapped', 50);
    await h.handlers['stores.applyEventAgain']({ id: unmapped.id }, waitingCall());
    while (await h.applier.applyNext());
    expect(await h.stores.events.find(unmapped.id)).toMatchObject({ outcome: 'applied' });
  });

  test('an e-mail turned off for the connection is recorded skipped, not sent', async () => {
    const { h, connection, apply } = await paddleShop();
    await h.handlers['stores.updateConnection'](
      { id: connection.id, emails: { created: false } },
      waitingCall(),
    );
    const event = await apply('transaction-completed-subscription-first');
    expect(event.mail).toMatchObject([{ moment: 'created', outcome: 'skipped' }]);
    expect(h.mail.sent).toEqual([]);
  });
});

describe('Stores: a refund finds the license of the payment it gives back', () => {
  test("a Stripe charge naming a renewal's invoice, not its subscription, takes back that renewal's period", async () => {
    const h = storeServiceHarness();
    const connection = await h.connect('stripe');
    await h.map(connection.id, 'price_1QbXg92eZvKYlo2CwZ1dT6Ke', 20);
    const apply = async (body: Buffer) => {
      await h.deliver(connection, body);
      while (await h.applier.applyNext());
      return h.stores.allEvents().at(-1)!;
    };
    await apply(storeFixture('stripe', 'invoice-paid-subscription-create'));
    await apply(storeFixture('stripe', 'invoice-paid-subscription-cycle-2024-06-20'));
    const refund = await apply(
      editedFixture(
        'stripe',
        'charge-refunded-partial-2024-06-20',
        ['data.object.refunded', true],
        ['data.object.amount_refunded', 4900],
      ),
    );
    expect(refund).toMatchObject({ outcome: 'applied', license_key: 'STORE-1' });
    // Back to when the renewal was charged (the charge's `created`).
    expect(h.licenses.get('STORE-1')).toMatchObject({
      expires_at: new Date('2027-11-23T08:00:53Z'),
      auto_renew: false,
    });
  });
});

describe('Stores: a subscription the store ended no longer says it renews', () => {
  test("Stripe's customer.subscription.deleted: cancelled, auto-renewal off, no next payment", async () => {
    const h = storeServiceHarness();
    const connection = await h.connect('stripe');
    await h.map(connection.id, 'price_1QbXg92eZvKYlo2CwZ1dT6Ke', 20);
    for (const name of ['invoice-paid-subscription-create', 'subscription-deleted']) {
      await h.deliver(connection, storeFixture('stripe', name));
      while (await h.applier.applyNext());
    }
    expect(h.stores.allEvents().map((e) => e.outcome)).toEqual(['applied', 'applied']);
    expect(h.licenses.get('STORE-1')).toMatchObject({
      status: 'cancelled',
      auto_renew: false,
      next_payment_at: null,
    });
  });
});

/** A WooCommerce connection selling product 890, and a helper that delivers under a topic. */
async function wooShop() {
  const h = storeServiceHarness();
  const connection = await h.connect('woocommerce');
  await h.map(connection.id, '890', 20, 365);
  const apply = async (body: Buffer, topic = 'subscription.updated') => {
    await h.deliver(connection, body, signedHeaders('woocommerce', body, h.clock(), SECRET, topic));
    while (await h.applier.applyNext());
    return h.stores.allEvents().at(-1)!;
  };
  return { h, apply };
}
const woo = (name: string, ...changes: [string, unknown][]) =>
  editedFixture('woocommerce', name, ...changes);

describe('Stores: one purchase, one license, whichever of its events comes first', () => {
  test("a subscription's parent order first: the subscription's activation makes that license its own, to the period paid, renewing", async () => {
    const { h, apply } = await wooShop();
    const parent = woo(
      'renewal_order_processing',
      ['id', 5119],
      ['meta_data', []],
      ['date_modified_gmt', '2026-05-01T10:00:04'],
    );
    expect(await apply(parent, 'order.updated')).toMatchObject({ outcome: 'applied' });
    expect(h.licenses.get('STORE-1')).toMatchObject({ auto_renew: false });
    expect((await apply(storeFixture('woocommerce', 'subscription_active'))).outcome).toBe(
      'applied',
    );
    expect(h.licenses.all()).toHaveLength(1);
    expect(h.licenses.get('STORE-1')).toMatchObject({
      expires_at: new Date('2026-06-01T10:00:02Z'),
      auto_renew: true,
      next_payment_at: new Date('2026-06-01T10:00:02Z'),
    });
  });

  test('a WooCommerce resubscription: its order and its new subscription find the license of the one it resubscribes', async () => {
    const { h, apply } = await wooShop();
    await apply(storeFixture('woocommerce', 'subscription_active'));
    await apply(storeFixture('woocommerce', 'subscription_cancelled'));
    const order = woo(
      'renewal_order_processing',
      ['id', 5500],
      ['meta_data', [{ id: 1, key: '_subscription_resubscribe', value: '5121' }]],
      ['date_modified_gmt', '2026-08-01T09:00:04'],
    );
    expect(await apply(order, 'order.updated')).toMatchObject({ outcome: 'no_change' });
    const again = woo(
      'subscription_active',
      ['id', 5501],
      ['parent_id', 5500],
      ['resubscribed_from', '5121'],
      ['date_modified_gmt', '2026-08-01T09:00:06'],
      ['next_payment_date_gmt', '2026-09-01T09:00:02'],
    );
    expect(await apply(again)).toMatchObject({ outcome: 'applied', license_key: 'STORE-1' });
    expect(h.licenses.all()).toHaveLength(1);
    expect(h.licenses.get('STORE-1')).toMatchObject({ status: 'active', auto_renew: true });
    const held = woo(
      'subscription_on_hold',
      ['id', 5501],
      ['parent_id', 5500],
      ['resubscribed_from', '5121'],
      ['date_modified_gmt', '2026-09-01T09:00:09'],
    );
    expect(await apply(held)).toMatchObject({ outcome: 'applied', license_key: 'STORE-1' });
  });
});
