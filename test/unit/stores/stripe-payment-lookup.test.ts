import { KEPT_DETAIL } from '../../../services/stores/applying/kept-endings.js';
import type { PaidInvoice, StripeApi } from '../../../services/stores/applying/store-api.js';
import { stripeStoreApi } from '../../../services/stores/applying/stripe-store-api.js';
import { storeFixture } from '../../support/store-fixtures.js';
import { storeServiceHarness } from '../../support/store-service-harness.js';

/**
 * docs/stores.md, Stripe: a refund or dispute names its payment, not the subscription it paid
 * for; when no license is linked to the payment, its invoice (read from Stripe's API) says which
 * subscription it paid and which period.
 */
const PRICE_YEAR = 'price_1QbXg92eZvKYlo2CwZ1dT6Ke';
const SUB = 'sub_1QbXkL2eZvKYlo2CmT4rVg8s';
const PERIOD_END = new Date(1826956850 * 1000);
const RENEWED_PERIOD_START = new Date('2027-06-01T00:00:00Z');

/** Stripe's API as the applier sees it: the invoice each payment paid, and what was asked. */
function fakeStripe(invoice: PaidInvoice | null) {
  const asked: unknown[] = [];
  const api: StripeApi = {
    checkoutSessionPriceIds: async () => [PRICE_YEAR],
    paidInvoice: async (_connection, payment) => {
      asked.push(payment);
      return invoice;
    },
  };
  return { api, asked };
}

/** A Stripe subscription's license, made by its first invoice, and the events after it. */
async function subscribed(invoice: PaidInvoice | null, apiKey: string | null = 'rk_test_1') {
  const stripe = fakeStripe(invoice);
  const h = storeServiceHarness({ storeApi: stripe.api });
  const connection = await h.connect('stripe', { api_key: apiKey });
  await h.map(connection.id, PRICE_YEAR);
  const apply = async (name: string) => {
    await h.deliver(connection, storeFixture('stripe', name));
    await h.applier.applyNext();
    return h.stores.allEvents().at(-1)!;
  };
  expect(await apply('invoice-paid-subscription-create')).toMatchObject({ outcome: 'applied' });
  expect(h.licenses.get('STORE-1')).toMatchObject({ expires_at: PERIOD_END, status: 'active' });
  return { h, apply, asked: stripe.asked };
}

describe('Stores: a Stripe refund or dispute of a subscription payment finds its license', () => {
  test("a renewal refunded in full takes the license back to its period's start, auto-renewal off", async () => {
    const { h, apply, asked } = await subscribed({
      subscriptionId: SUB,
      first: false,
      periodStart: RENEWED_PERIOD_START,
    });
    expect(await apply('charge-refunded-full')).toMatchObject({
      outcome: 'applied',
      license_key: 'STORE-1',
    });
    expect(asked).toEqual([{ invoiceId: null, paymentIntentId: 'pi_3QbY0a2eZvKYlo2C1mR5kZ8x' }]);
    expect(h.licenses.get('STORE-1')).toMatchObject({
      status: 'active',
      expires_at: RENEWED_PERIOD_START,
      auto_renew: false,
    });
  });

  test('its first payment refunded in full revokes the license', async () => {
    const { h, apply } = await subscribed({
      subscriptionId: SUB,
      first: true,
      periodStart: new Date(1795420850 * 1000),
    });
    expect(await apply('charge-refunded-full')).toMatchObject({ outcome: 'applied' });
    expect(h.licenses.get('STORE-1')!.status).toBe('revoked');
  });

  test('a dispute of a subscription payment revokes its license', async () => {
    const { h, apply } = await subscribed({
      subscriptionId: SUB,
      first: false,
      periodStart: RENEWED_PERIOD_START,
    });
    expect(await apply('charge-dispute-created')).toMatchObject({ outcome: 'applied' });
    expect(h.licenses.get('STORE-1')!.status).toBe('revoked');
  });

  test('a payment of no invoice, or of no subscription, changes nothing: its refund is kept for a license its sale makes', async () => {
    const { h, apply } = await subscribed(null);
    expect(await apply('charge-refunded-full')).toMatchObject({
      outcome: 'no_change',
      detail: KEPT_DETAIL,
    });
    expect(h.licenses.get('STORE-1')!.status).toBe('active');
  });

  test("a one-off order's refund finds its license by the payment, without asking Stripe", async () => {
    const stripe = fakeStripe(null);
    const h = storeServiceHarness({ storeApi: stripe.api });
    const connection = await h.connect('stripe', { api_key: 'rk_test_1' });
    await h.map(connection.id, PRICE_YEAR);
    for (const name of ['checkout-session-completed-payment', 'charge-refunded-full']) {
      await h.deliver(connection, storeFixture('stripe', name));
      await h.applier.applyNext();
    }
    expect(h.stores.allEvents().map((e) => e.outcome)).toEqual(['applied', 'applied']);
    expect(h.licenses.get('STORE-1')!.status).toBe('revoked');
    expect(stripe.asked).toEqual([]);
  });

  test('without an API key the refund of an unlinked payment fails at once, saying what to set', async () => {
    const h = storeServiceHarness({ storeApi: stripeStoreApi({ host: '127.0.0.1', port: 9 }) });
    const connection = await h.connect('stripe');
    await h.map(connection.id, PRICE_YEAR);
    for (const name of ['invoice-paid-subscription-create', 'charge-refunded-full']) {
      await h.deliver(connection, storeFixture('stripe', name));
      await h.applier.applyNext();
    }
    const refund = h.stores.allEvents().at(-1)!;
    expect(refund).toMatchObject({ outcome: 'failed', attempts: 1 });
    expect(refund.detail).toMatch(/API key/);
    expect(h.licenses.get('STORE-1')!.status).toBe('active');
  });
});
