import { KEPT_DETAIL } from '../../../services/stores/applying/kept-endings.js';
import { decideStoreEvent } from '../../../services/stores/license-change-rules.js';
import type { StoreEventFacts } from '../../../services/stores/store-events.js';
import type { StoreApi } from '../../../services/stores/applying/store-api.js';
import type { StoreProvider } from '../../../libs/contracts/stores/store-connections.js';
import { editedFixture, storeFixture } from '../../support/store-fixtures.js';
import { SECRET, signedHeaders, storeServiceHarness } from '../../support/store-service-harness.js';

/**
 * docs/stores.md, "An ending before its sale": stores retry out of order, so a full refund, a
 * chargeback or the end of a subscription may arrive before the event that makes its license.
 * Kept, it is applied to that license when it is made: the license ends as the store last said.
 */
async function shop(provider: StoreProvider, externalId: string, storeApi: Partial<StoreApi> = {}) {
  const h = storeServiceHarness({ storeApi });
  const connection = await h.connect(provider, { api_key: provider === 'stripe' ? 'rk_1' : null });
  await h.map(connection.id, externalId, 20, 365);
  /** Delivers a fixture (or its edited bytes), WooCommerce's under `topic`, and applies it. */
  const apply = async (name: string, body = storeFixture(provider, name), topic?: string) => {
    const headers = signedHeaders(provider, body, h.clock(), SECRET, topic);
    await h.deliver(connection, body, headers);
    while (await h.applier.applyNext());
    return h.stores.allEvents().at(-1)!;
  };
  return { h, connection, apply };
}

const PADDLE_PRICE = 'pri_01jdqyq3b5d7f9h1k3m5p7r9ts';
const PADDLE_ORDER_PRICE = 'pri_01jdqys2d4f6h8k0m2p4r6t8vy';
const STRIPE_PRICE = 'price_1QbXg92eZvKYlo2CwZ1dT6Ke';

describe('Stores: an ending that finds no license is kept for the license its sale makes', () => {
  const event = (facts: StoreEventFacts) => ({
    eventId: 'evt_1',
    occurredAt: new Date('2026-06-01T00:00:00Z'),
    externalIds: [],
    orderId: 'in_1',
    subscriptionId: 'sub_1',
    customer: null,
    ...facts,
  });
  const mapping = { productId: 7, planId: 3, renewal: 'gateway', durationDays: null } as const;

  test('a full refund, a chargeback and the subscription ended are kept', () => {
    for (const facts of [
      { kind: 'refunded', full: true, periodStart: null },
      { kind: 'refunded', full: true, periodStart: new Date('2026-05-01T00:00:00Z') },
      { kind: 'chargeback' },
      { kind: 'subscription_ended' },
    ] as const) {
      expect(decideStoreEvent(event(facts), mapping, null).outcome).toBe('keep');
    }
  });
  test('a partial refund is recorded and changes nothing, as ever', () => {
    const partial = event({ kind: 'refunded', full: false, periodStart: null });
    expect(decideStoreEvent(partial, mapping, null)).toEqual({
      outcome: 'no_change',
      reason: 'no license for this order',
    });
  });
});

describe('Stores: an ending that arrives before its sale ends the license the sale makes', () => {
  test('Lemon Squeezy: order_refunded in full, then order_created: the license is revoked, no key mailed', async () => {
    const { h, apply } = await shop('lemonsqueezy', '455');
    const refund = await apply('order_refunded_full');
    expect(refund).toMatchObject({ outcome: 'no_change', detail: KEPT_DETAIL, license_key: null });
    expect(h.licenses.all()).toEqual([]);
    const order = await apply('order_created');
    expect(order).toMatchObject({ outcome: 'applied', license_key: 'STORE-1' });
    expect(h.licenses.get('STORE-1')!.status).toBe('revoked');
    expect(order.mail).toMatchObject([
      {
        moment: 'created',
        outcome: 'skipped',
        detail: 'the store ended the sale before this event made its license',
      },
    ]);
    expect(h.mail.sent).toEqual([]);
  });

  test('Lemon Squeezy: subscription_expired before its subscription_created: cancelled, not renewing', async () => {
    const { h, apply } = await shop('lemonsqueezy', '470');
    expect((await apply('subscription_expired')).detail).toBe(KEPT_DETAIL);
    expect((await apply('subscription_created')).outcome).toBe('applied');
    expect(h.licenses.get('STORE-1')).toMatchObject({
      status: 'cancelled',
      auto_renew: false,
      next_payment_at: null,
    });
  });

  test('Paddle: a chargeback before its transaction revokes it; subscription.canceled before its first payment cancels it', async () => {
    const { h, connection, apply } = await shop('paddle', PADDLE_ORDER_PRICE);
    await h.map(connection.id, PADDLE_PRICE, 30);
    expect((await apply('adjustment-created-chargeback')).detail).toBe(KEPT_DETAIL);
    expect((await apply('transaction-completed-order')).outcome).toBe('applied');
    expect(h.licenses.get('STORE-1')!.status).toBe('revoked');
    expect((await apply('subscription-canceled')).detail).toBe(KEPT_DETAIL);
    expect((await apply('transaction-completed-subscription-first')).outcome).toBe('applied');
    expect(h.licenses.get('STORE-2')).toMatchObject({ status: 'cancelled', auto_renew: false });
  });

  test('Stripe: a full refund before its Checkout Session, and the subscription deleted before its first invoice', async () => {
    const { h, apply } = await shop('stripe', STRIPE_PRICE, {
      checkoutSessionPriceIds: async () => [STRIPE_PRICE],
      paidInvoice: async () => null,
    });
    expect((await apply('charge-refunded-full')).detail).toBe(KEPT_DETAIL);
    expect((await apply('checkout-session-completed-payment')).outcome).toBe('applied');
    expect(h.licenses.get('STORE-1')!.status).toBe('revoked');
    expect((await apply('subscription-deleted')).detail).toBe(KEPT_DETAIL);
    expect((await apply('invoice-paid-subscription-create')).outcome).toBe('applied');
    expect(h.licenses.get('STORE-2')).toMatchObject({ status: 'cancelled', auto_renew: false });
  });

  test("Stripe: a subscription's first payment refunded before its invoice.paid, found by the invoice Stripe's API names", async () => {
    const { h, apply } = await shop('stripe', STRIPE_PRICE, {
      paidInvoice: async () => ({
        subscriptionId: 'sub_1QbXkL2eZvKYlo2CmT4rVg8s',
        first: true,
        periodStart: null,
      }),
    });
    expect((await apply('charge-refunded-full')).detail).toBe(KEPT_DETAIL);
    expect((await apply('invoice-paid-subscription-create')).outcome).toBe('applied');
    expect(h.licenses.get('STORE-1')!.status).toBe('revoked');
  });

  test('WooCommerce: an order refunded before it was paid, and a subscription cancelled before it was active', async () => {
    const { h, connection, apply } = await shop('woocommerce', '884');
    await h.map(connection.id, '890', 30);
    const refunded = await apply('order_refunded', undefined, 'order.updated');
    expect(refunded.detail).toBe(KEPT_DETAIL);
    expect((await apply('order_processing', undefined, 'order.created')).outcome).toBe('applied');
    expect(h.licenses.get('STORE-1')!.status).toBe('revoked');
    const cancelled = await apply('subscription_cancelled', undefined, 'subscription.updated');
    expect(cancelled.detail).toBe(KEPT_DETAIL);
    const active = await apply('subscription_active', undefined, 'subscription.updated');
    expect(active).toMatchObject({ outcome: 'applied', license_key: 'STORE-2' });
    expect(h.licenses.get('STORE-2')).toMatchObject({ status: 'cancelled', auto_renew: false });
  });

  test('a partial refund before its order stays recorded and changes nothing: the order makes an active license', async () => {
    const { h, apply } = await shop('lemonsqueezy', '455');
    expect(await apply('order_refunded_partial')).toMatchObject({
      outcome: 'no_change',
      detail: 'no license for this order',
    });
    await apply('order_created');
    expect(h.licenses.get('STORE-1')!.status).toBe('active');
  });
});

describe('Stores: a kept ending is applied once, however its events are delivered', () => {
  test('delivered twice, and sent again with other bytes, it ends the license once', async () => {
    const { h, apply } = await shop('lemonsqueezy', '455');
    await apply('order_refunded_full');
    await apply('order_refunded_full');
    const resent = editedFixture('lemonsqueezy', 'order_refunded_full', ['meta.test_mode', false]);
    await apply('order_refunded_full', resent);
    await apply('order_created');
    await apply('order_created');
    expect(h.licenses.all()).toHaveLength(1);
    expect(h.licenses.get('STORE-1')!.status).toBe('revoked');
    const updates = h.licenses.calls.filter((c) => c.method === 'update');
    expect(updates).toEqual([
      { method: 'update', request: { license_key: 'STORE-1', status: 'revoked' } },
    ]);
  });

  test('applied once: a later resumption is not undone by it again', async () => {
    const { h, apply } = await shop('paddle', PADDLE_PRICE);
    await apply('subscription-canceled');
    await apply('transaction-completed-subscription-first');
    expect(h.licenses.get('STORE-1')!.status).toBe('cancelled');
    const resumed = editedFixture('paddle', 'subscription-resumed', [
      'occurred_at',
      '2028-01-01T00:00:00Z',
    ]);
    expect((await apply('subscription-resumed', resumed)).outcome).toBe('applied');
    const renewal = editedFixture('paddle', 'transaction-completed-renewal', [
      'occurred_at',
      '2028-01-02T00:00:00Z',
    ]);
    await apply('transaction-completed-renewal', renewal);
    expect(h.licenses.get('STORE-1')).toMatchObject({ status: 'active', auto_renew: true });
  });

  test('an attempt that stops after making the license, before ending it, ends it on the retry', async () => {
    const { h, connection, apply } = await shop('lemonsqueezy', '455');
    await apply('order_refunded_full');
    await h.deliver(connection, storeFixture('lemonsqueezy', 'order_created'));
    // The create answers; the revocation that follows it does not.
    const create = h.licenses.port.createStoreLicense.bind(h.licenses.port);
    h.licenses.port.createStoreLicense = async (license) => {
      const made = await create(license);
      h.licenses.failNext(1);
      return made;
    };
    await h.applier.applyNext();
    expect(h.stores.allEvents().at(-1)).toMatchObject({ outcome: 'pending', attempts: 1 });
    expect(h.licenses.get('STORE-1')!.status).toBe('active');
    h.setNow(new Date(h.clock().getTime() + 60 * 60_000));
    while (await h.applier.applyNext());
    expect(h.stores.allEvents().at(-1)).toMatchObject({ outcome: 'applied', attempts: 2 });
    expect(h.licenses.get('STORE-1')!.status).toBe('revoked');
  });

  test('kept while its sale made the license without seeing it: the ending, looking again once kept, applies it', async () => {
    const { h, connection, apply } = await shop('lemonsqueezy', '455');
    await apply('order_created');
    // As when the sale's event, on another replica, had not linked its license yet.
    const find = h.stores.links.find.bind(h.stores.links);
    h.stores.links.find = async () => {
      h.stores.links.find = find;
      return null;
    };
    await h.deliver(connection, storeFixture('lemonsqueezy', 'order_refunded_full'));
    while (await h.applier.applyNext());
    expect(h.stores.allEvents().at(-1)).toMatchObject({
      outcome: 'applied',
      license_key: 'STORE-1',
    });
    expect(h.licenses.get('STORE-1')!.status).toBe('revoked');
    expect(
      await h.stores.endings.pending(connection.id, { order_ids: ['1402'], subscription_ids: [] }),
    ).toEqual([]);
  });
});
