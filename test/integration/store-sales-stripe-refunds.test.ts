import { eventually } from '../support/eventually.js';
import { fakeStripeApi } from '../support/fake-stripe-api.js';
import { editedFixture, storeFixture } from '../support/store-fixtures.js';
import { startStoreSales, type StoreSales } from '../support/store-sales.js';

/**
 * docs/stores.md, Stripe: since API version 2025-03-31 a charge names only its payment intent, so
 * a refund or dispute of a subscription's payment finds its license through the invoice that
 * payment paid, read from Stripe's API (a fake of it on loopback) with the connection's key.
 */
const API_KEY = 'rk_live_51QbXreadsinvoices';
const PRICE = 'price_1QbXg92eZvKYlo2CwZ1dT6Ke';
const FIRST_INVOICE = 'in_1QbY2d2eZvKYlo2CxV7nP4aB';
const RENEWAL_INVOICE = 'in_1SoR4d2eZvKYlo2CpO9iU8yT';
const FIRST_PAYMENT = 'pi_3QbY2e2eZvKYlo2CfirstPay';
const RENEWAL_PAYMENT = 'pi_3SoR4e2eZvKYlo2C0p8hT4sD';
/** The renewal's period began where the first one ended. */
const RENEWAL_START = '2027-11-23T08:00:50.000Z';
/** Later than every invoice of the fixtures: a refund is never older than what it refunds. */
const LATER = 1_826_960_000;

/** An invoice as Stripe's API answers it: the object its `invoice.paid` event carried. */
const invoiceOf = (fixture: string): unknown =>
  (JSON.parse(storeFixture('stripe', fixture).toString('utf8')) as { data: { object: unknown } })
    .data.object;

let stripeApi: Awaited<ReturnType<typeof fakeStripeApi>>;
let sales: StoreSales;
beforeAll(async () => {
  stripeApi = await fakeStripeApi(API_KEY, () => null, {
    paidBy: { [FIRST_PAYMENT]: FIRST_INVOICE, [RENEWAL_PAYMENT]: RENEWAL_INVOICE },
    byId: {
      [FIRST_INVOICE]: invoiceOf('invoice-paid-subscription-create'),
      [RENEWAL_INVOICE]: invoiceOf('invoice-paid-subscription-cycle-2024-06-20'),
    },
  });
  sales = await startStoreSales({ settings: { STRIPE_API_URL: stripeApi.url } });
});
afterAll(async () => {
  await sales?.stop();
  await stripeApi?.close();
});

/** A charge event of today's shape: its payment intent, no invoice, sent after the renewal. */
const charge = (fixture: string, id: string, paymentIntent: string) =>
  editedFixture(
    'stripe',
    fixture,
    ['id', id],
    ['created', LATER],
    ['data.object.payment_intent', paymentIntent],
  );

async function renewedSubscription(apiKey: string | null) {
  const shop = await sales.shop('stripe', PRICE, { apiKey });
  const first = await shop.deliver('invoice-paid-subscription-create');
  await shop.deliver('invoice-paid-subscription-cycle-2024-06-20');
  return { shop, licenseKey: first.license_key! };
}

describe("docs/stores.md: a Stripe refund or dispute of a subscription's payment, end to end", () => {
  test("a renewal's payment refunded in full takes back that period, read from the invoice it paid", async () => {
    const { shop, licenseKey } = await renewedSubscription(API_KEY);
    const asked = stripeApi.seen.length;
    const refunded = await shop.deliver(
      'charge-refunded-full',
      charge('charge-refunded-full', 'evt_3SpS2s2eZvKYlo2CrenewalBack', RENEWAL_PAYMENT),
    );
    expect(refunded).toMatchObject({ outcome: 'applied', license_key: licenseKey });
    expect(stripeApi.seen.slice(asked).map((s) => s.url.split('?')[0])).toEqual([
      '/v1/invoice_payments',
      `/v1/invoices/${RENEWAL_INVOICE}`,
    ]);
    expect(await shop.only()).toMatchObject({
      status: 'active',
      expires_at: RENEWAL_START,
      auto_renew: false,
    });
  });

  test('a dispute of the first payment revokes the license', async () => {
    const { shop, licenseKey } = await renewedSubscription(API_KEY);
    const disputed = await shop.deliver(
      'charge-dispute-created',
      charge('charge-dispute-created', 'evt_1QeD2t2eZvKYlo2CfirstDisputed', FIRST_PAYMENT),
    );
    expect(disputed).toMatchObject({ outcome: 'applied', license_key: licenseKey });
    expect((await shop.only()).status).toBe('revoked');
  });

  test('the first payment refunded in full before its invoice.paid arrives: that invoice makes a revoked license', async () => {
    const shop = await sales.shop('stripe', PRICE, { apiKey: API_KEY });
    const refunded = await shop.deliver(
      'charge-refunded-full',
      charge('charge-refunded-full', 'evt_3SpS2s2eZvKYlo2CfirstBackEarly', FIRST_PAYMENT),
    );
    expect(refunded).toMatchObject({ outcome: 'no_change', license_key: null });
    const first = await shop.deliver('invoice-paid-subscription-create');
    expect(first.outcome).toBe('applied');
    expect(await shop.only()).toMatchObject({ license_key: first.license_key, status: 'revoked' });
  });

  test('without an API key the refund fails, saying to set one; applied again once it is set', async () => {
    const { shop, licenseKey } = await renewedSubscription(null);
    const failed = await shop.deliver(
      'charge-refunded-full',
      charge('charge-refunded-full', 'evt_3SpS2s2eZvKYlo2CnoKeyYet', RENEWAL_PAYMENT),
    );
    expect(failed).toMatchObject({ outcome: 'failed' });
    expect(failed.detail).toMatch(/API key/);
    const { transport } = sales.system;
    await transport.call('stores.updateConnection', { id: shop.connection.id, api_key: API_KEY });
    await transport.call('stores.applyEventAgain', { id: failed.id });
    await eventually('the refund applied', async () => {
      const event = await transport.call('stores.getEvent', { id: failed.id });
      return event.outcome === 'applied';
    });
    expect(await shop.read(licenseKey)).toMatchObject({
      expires_at: RENEWAL_START,
      auto_renew: false,
    });
  });
});
