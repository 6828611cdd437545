import { fakeStripeApi } from '../support/fake-stripe-api.js';
import { mimeHeader } from '../support/mime-message.js';
import { editedFixture } from '../support/store-fixtures.js';
import { startStoreSales, type StoreSales } from '../support/store-sales.js';

/**
 * docs/stores.md, Stripe's one-off orders end to end: Checkout Sessions and invoices signed as
 * Stripe signs them, POSTed to the gateway, applied through the license service, the key mailed
 * over SMTP. A Checkout Session's event carries no line items: they are read from Stripe's API
 * (here a fake of it on loopback) with the connection's API key.
 */
const API_KEY = 'rk_live_51QbXreadscheckoutsessions';
const PRICE = 'price_1QbXhA2eZvKYlo2CBc9L0rYq';
const SESSION = 'cs_test_a1Hk9bZqXr2Lm4Np6Qs8Tv0Wy3Bc5De7Fg9Hj1Kl3Mn5Pq7Rs9Tu1Vw3Xy5Za7';
const PAYMENT_INTENT = 'pi_3QbY0a2eZvKYlo2C1mR5kZ8x';

let stripeApi: Awaited<ReturnType<typeof fakeStripeApi>>;
let sales: StoreSales;
beforeAll(async () => {
  // Every session of these tests sold the one price.
  stripeApi = await fakeStripeApi(API_KEY, () => [PRICE]);
  sales = await startStoreSales({ settings: { STRIPE_API_URL: stripeApi.url } });
});
afterAll(async () => {
  await sales?.stop();
  await stripeApi?.close();
});

const stripe = (name: string, ...changes: [string, unknown][]) =>
  editedFixture('stripe', name, ...changes);

/** Another buyer's Checkout Session: its own event, session and payment intent. */
const otherSession = (n: number) =>
  stripe(
    'checkout-session-completed-payment',
    ['id', `evt_1QbY0d2eZvKYlo2Cother${n}`],
    ['data.object.id', `${SESSION.slice(0, -4)}oth${n}`],
    ['data.object.payment_intent', `pi_3QbY0a2eZvKYlo2Cother${n}`],
  );

describe('docs/stores.md: a paid Stripe order becomes one license, end to end', () => {
  test("a paid Checkout Session: its price read from Stripe's API with the connection's key, one license per order, the key mailed", async () => {
    const shop = await sales.shop('stripe', PRICE, { apiKey: API_KEY, durationDays: null });
    const asked = stripeApi.seen.length;
    const paid = await shop.deliver('checkout-session-completed-payment');
    expect(paid).toMatchObject({ outcome: 'applied', order_id: PAYMENT_INTENT });
    expect(stripeApi.seen.slice(asked)).toEqual([
      {
        url: expect.stringMatching(`^/v1/checkout/sessions/${SESSION}/line_items`) as string,
        authorization: `Bearer ${API_KEY}`,
      },
    ]);
    expect(await shop.only()).toMatchObject({
      license_key: paid.license_key,
      plan_id: shop.plan.id,
      status: 'active',
      expires_at: null,
      auto_renew: false,
      customer: { email: 'ada@example.com' },
    });
    // The same order told again by another event: still its one license.
    const again = await shop.deliver(
      'checkout-session-completed-payment',
      stripe('checkout-session-completed-payment', ['id', 'evt_1QbY0d2eZvKYlo2CsentAgain']),
    );
    expect(again).toMatchObject({
      outcome: 'no_change',
      detail: 'the order already has its license',
    });
    expect(await shop.licenses()).toHaveLength(1);
    const letter = await sales.letterAbout(paid.license_key!, 'Your license key for');
    expect(mimeHeader(letter, 'To')).toContain('ada@example.com');
  });

  test('an invoice paid without a subscription is an order of its own: a second order, a second license', async () => {
    const shop = await sales.shop('stripe', PRICE, { apiKey: API_KEY });
    await shop.deliver('checkout-session-completed-payment');
    const invoiced = await shop.deliver('invoice-paid-one-off');
    expect(invoiced).toMatchObject({ outcome: 'applied', order_id: 'in_1QcB0c2eZvKYlo2CqA2sD3fG' });
    // The mapping's 365 days from the payment.
    expect((await shop.read(invoiced.license_key!)).expires_at).toBe('2027-11-26T08:00:00.000Z');
    expect(await shop.licenses()).toHaveLength(2);
  });

  test('a partial refund is recorded and changes nothing; a full refund revokes; a chargeback revokes', async () => {
    const shop = await sales.shop('stripe', PRICE, { apiKey: API_KEY });
    const refunded = await shop.deliver('checkout-session-completed-payment');
    const partial = await shop.deliver(
      'charge-refunded-full',
      stripe(
        'charge-refunded-full',
        ['id', 'evt_3QdC1r2eZvKYlo2Cpartial1'],
        ['data.object.refunded', false],
        ['data.object.amount_refunded', 2000],
      ),
    );
    expect(partial).toMatchObject({
      outcome: 'no_change',
      detail: 'a partial refund is recorded and changes nothing',
    });
    expect((await shop.read(refunded.license_key!)).status).toBe('active');
    expect((await shop.deliver('charge-refunded-full')).outcome).toBe('applied');
    expect((await shop.read(refunded.license_key!)).status).toBe('revoked');

    const disputed = await shop.deliver('checkout-session-completed-payment', otherSession(1));
    expect(disputed.outcome).toBe('applied');
    const dispute = await shop.deliver(
      'charge-dispute-created',
      stripe('charge-dispute-created', ['data.object.payment_intent', 'pi_3QbY0a2eZvKYlo2Cother1']),
    );
    expect(dispute).toMatchObject({ outcome: 'applied', license_key: disputed.license_key });
    expect((await shop.read(disputed.license_key!)).status).toBe('revoked');
    expect(await shop.licenses()).toHaveLength(2);
  });

  test("without the connection's API key a Checkout Session fails at once, saying what to set, and nothing is asked of Stripe", async () => {
    const shop = await sales.shop('stripe', PRICE);
    const asked = stripeApi.seen.length;
    const failed = await shop.deliver('checkout-session-completed-payment', otherSession(2));
    expect(failed).toMatchObject({ outcome: 'failed', attempts: 1 });
    expect(failed.detail).toMatch(/API key/);
    expect(stripeApi.seen).toHaveLength(asked);
    expect(await shop.licenses()).toHaveLength(0);
  });
});
