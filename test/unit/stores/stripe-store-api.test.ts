import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stripeStoreApi } from '../../../services/stores/applying/stripe-store-api.js';
import type { StoreConnectionRecord } from '../../../services/stores/stores.js';

/** Stripe's API as far as a Checkout Session's line items go, on loopback. */
let server: Server;
const seen: Array<{ url: string; auth: string | undefined }> = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', auth: req.headers.authorization });
    res.setHeader('Content-Type', 'application/json');
    res.end(
      JSON.stringify({
        object: 'list',
        url: '/v1/checkout/sessions/cs_test_1/line_items',
        has_more: false,
        data: [
          { id: 'li_1', object: 'item', quantity: 1, price: { id: 'price_b', object: 'price' } },
          { id: 'li_2', object: 'item', quantity: 1, price: { id: 'price_a', object: 'price' } },
        ],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

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
    const api = stripeStoreApi({
      host: '127.0.0.1',
      port: (server.address() as AddressInfo).port,
      protocol: 'http',
    });
    expect(await api.checkoutSessionPriceIds(connection('rk_test_key'), 'cs_test_1')).toEqual([
      'price_b',
      'price_a',
    ]);
    expect(seen[0]!.url).toMatch(/^\/v1\/checkout\/sessions\/cs_test_1\/line_items/);
    expect(seen[0]!.auth).toBe('Bearer rk_test_key');
  });

  test('without an API key nothing is asked, and the failure says what to set', async () => {
    const before = seen.length;
    await expect(
      stripeStoreApi().checkoutSessionPriceIds(connection(null), 'cs_1'),
    ).rejects.toThrow(/API key/);
    expect(seen).toHaveLength(before);
  });
});
