import {
  stripeEndpoint,
  stripeStoreApi,
} from '../../../services/stores/applying/stripe-store-api.js';
import type { StoreConnectionRecord } from '../../../services/stores/stores.js';
import { fakeStripeApi } from '../../support/fake-stripe-api.js';

/** A subscription's renewal invoice as Stripe answers it: a credit line, then the period paid. */
const RENEWAL_INVOICE = {
  id: 'in_renewal',
  object: 'invoice',
  billing_reason: 'subscription_cycle',
  parent: { type: 'subscription_details', subscription_details: { subscription: 'sub_1' } },
  lines: {
    object: 'list',
    has_more: false,
    data: [
      { amount: -500, period: { start: 1_700_000_000, end: 1_731_536_000 } },
      {
        amount: 4900,
        period: { start: 1_731_536_000, end: 1_763_072_000 },
        parent: { subscription_item_details: { subscription: 'sub_1' } },
      },
    ],
  },
};

/** Stripe's API as far as the stores service reads it, on loopback. */
let stripe: Awaited<ReturnType<typeof fakeStripeApi>>;
beforeAll(async () => {
  stripe = await fakeStripeApi(
    'rk_test_key',
    (id) => (id === 'cs_test_1' ? ['price_b', 'price_a'] : null),
    { paidBy: { pi_renewal: 'in_renewal' }, byId: { in_renewal: RENEWAL_INVOICE } },
  );
});
afterAll(() => stripe.close());

const connection = (apiKey: string | null): StoreConnectionRecord => ({
  id: 1,
  name: 'Shop',
  provider: 'stripe',
  mode: 'test',
  secrets: [{ secret: 'whsec_x', expires_at: null }],
  api_key: apiKey,
  grace_days: 3,
  emails: { created: true, renewed: true, suspended: true, cancelled: true },
  secret_rotated_at: null,
  created_at: new Date(),
  updated_at: new Date(),
});

describe("Stores: a Checkout Session's price ids are read from Stripe's API with the connection's key", () => {
  test('the line items’ price ids, in order, asked with the API key', async () => {
    const api = stripeStoreApi(stripe.endpoint);
    expect(await api.checkoutSessionPriceIds(connection('rk_test_key'), 'cs_test_1')).toEqual([
      'price_b',
      'price_a',
    ]);
    expect(stripe.seen[0]!.url).toMatch(/^\/v1\/checkout\/sessions\/cs_test_1\/line_items/);
    expect(stripe.seen[0]!.authorization).toBe('Bearer rk_test_key');
  });

  test('without an API key nothing is asked, and the failure says what to set', async () => {
    const before = stripe.seen.length;
    await expect(
      stripeStoreApi().checkoutSessionPriceIds(connection(null), 'cs_1'),
    ).rejects.toThrow(/API key/);
    expect(stripe.seen).toHaveLength(before);
  });
});

describe("Stores: the invoice a Stripe payment paid is read from Stripe's API", () => {
  const api = () => stripeStoreApi(stripe.endpoint);

  test("a payment intent's invoice: its subscription, a renewal, and the period its lines paid", async () => {
    const before = stripe.seen.length;
    expect(
      await api().paidInvoice(connection('rk_test_key'), {
        invoiceId: null,
        paymentIntentId: 'pi_renewal',
      }),
    ).toEqual({
      subscriptionId: 'sub_1',
      first: false,
      periodStart: new Date(1_731_536_000 * 1000),
    });
    expect(stripe.seen.slice(before).map((s) => s.url.split('?')[0])).toEqual([
      '/v1/invoice_payments',
      '/v1/invoices/in_renewal',
    ]);
  });

  test('an invoice named by the charge is read at once; a payment of no invoice is none', async () => {
    const before = stripe.seen.length;
    const paid = await api().paidInvoice(connection('rk_test_key'), {
      invoiceId: 'in_renewal',
      paymentIntentId: 'pi_renewal',
    });
    expect(paid?.subscriptionId).toBe('sub_1');
    expect(stripe.seen.slice(before).map((s) => s.url.split('?')[0])).toEqual([
      '/v1/invoices/in_renewal',
    ]);
    expect(
      await api().paidInvoice(connection('rk_test_key'), {
        invoiceId: null,
        paymentIntentId: 'pi_one_off',
      }),
    ).toBeNull();
  });
});

describe("Stores: Stripe's API is reached where STRIPE_API_URL says (docs/stores.md: The stores' APIs)", () => {
  test("unset: Stripe's own address, the stripe package's default", () => {
    expect(stripeEndpoint(undefined)).toEqual({});
  });

  test('an address: its scheme, host and port, the port of its scheme when it names none', () => {
    expect(stripeEndpoint('http://127.0.0.1:12111')).toEqual({
      protocol: 'http',
      host: '127.0.0.1',
      port: 12111,
    });
    expect(stripeEndpoint('https://stripe-proxy.internal/')).toEqual({
      protocol: 'https',
      host: 'stripe-proxy.internal',
      port: 443,
    });
    expect(stripeEndpoint('http://[::1]:8420')).toEqual({
      protocol: 'http',
      host: '::1',
      port: 8420,
    });
  });

  test("the calls go to the set address: a fake's on loopback", async () => {
    const before = stripe.seen.length;
    const api = stripeStoreApi(stripeEndpoint(stripe.url));
    expect(await api.checkoutSessionPriceIds(connection('rk_test_key'), 'cs_test_1')).toEqual([
      'price_b',
      'price_a',
    ]);
    expect(stripe.seen).toHaveLength(before + 1);
  });
});
