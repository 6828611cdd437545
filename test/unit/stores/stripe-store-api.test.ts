import { stripeStoreApi } from '../../../services/stores/applying/stripe-store-api.js';
import type { StoreConnectionRecord } from '../../../services/stores/stores.js';
import { fakeStripeApi } from '../../support/fake-stripe-api.js';

/** Stripe's API as far as a Checkout Session's line items go, on loopback. */
let stripe: Awaited<ReturnType<typeof fakeStripeApi>>;
beforeAll(async () => {
  stripe = await fakeStripeApi('rk_test_key', (id) =>
    id === 'cs_test_1' ? ['price_b', 'price_a'] : null,
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
