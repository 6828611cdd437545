import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { stripeStoreApi } from '../../../services/stores/applying/stripe-store-api.js';
import type { StoreConnectionRecord } from '../../../services/stores/stores.js';

/** Stripe's API as far as a Checkout Session's line items go, on loopback. */
let server: Server;
const seen: Array<{ url: string; auth: string | undefined }> = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? '';
    seen.push({ url, auth: req.headers.authorization });
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(answerTo(decodeURIComponent(url))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
/** Stripe's answers: a session's line items, a payment intent's invoice, and that invoice. */
function answerTo(url: string): unknown {
  const list = (data: unknown[]) => ({ object: 'list', url, has_more: false, data });
  if (url.startsWith('/v1/checkout/sessions/cs_test_1/line_items')) {
    return list([
      { id: 'li_1', object: 'item', quantity: 1, price: { id: 'price_b', object: 'price' } },
      { id: 'li_2', object: 'item', quantity: 1, price: { id: 'price_a', object: 'price' } },
    ]);
  }
  if (url.startsWith('/v1/invoice_payments')) {
    const paid = url.includes('payment[payment_intent]=pi_renewal');
    return list(paid ? [{ id: 'inpay_1', object: 'invoice_payment', invoice: 'in_renewal' }] : []);
  }
  if (url.startsWith('/v1/invoices/in_renewal')) {
    return {
      id: 'in_renewal',
      object: 'invoice',
      billing_reason: 'subscription_cycle',
      parent: { type: 'subscription_details', subscription_details: { subscription: 'sub_1' } },
      lines: list([
        { amount: -500, period: { start: 1_700_000_000, end: 1_731_536_000 } },
        {
          amount: 4900,
          period: { start: 1_731_536_000, end: 1_763_072_000 },
          parent: { subscription_item_details: { subscription: 'sub_1' } },
        },
      ]),
    };
  }
  return { error: { type: 'invalid_request_error', message: `No such route: ${url}` } };
}
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

describe("Stores: the invoice a Stripe payment paid is read from Stripe's API", () => {
  const api = () =>
    stripeStoreApi({
      host: '127.0.0.1',
      port: (server.address() as AddressInfo).port,
      protocol: 'http',
    });

  test("a payment intent's invoice: its subscription, a renewal, and the period its lines paid", async () => {
    const before = seen.length;
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
    expect(seen.slice(before).map((s) => s.url.split('?')[0])).toEqual([
      '/v1/invoice_payments',
      '/v1/invoices/in_renewal',
    ]);
  });

  test('an invoice named by the charge is read at once; a payment of no invoice is none', async () => {
    const before = seen.length;
    const paid = await api().paidInvoice(connection('rk_test_key'), {
      invoiceId: 'in_renewal',
      paymentIntentId: 'pi_renewal',
    });
    expect(paid?.subscriptionId).toBe('sub_1');
    expect(seen.slice(before).map((s) => s.url.split('?')[0])).toEqual(['/v1/invoices/in_renewal']);
    expect(
      await api().paidInvoice(connection('rk_test_key'), {
        invoiceId: null,
        paymentIntentId: 'pi_one_off',
      }),
    ).toBeNull();
  });
});
