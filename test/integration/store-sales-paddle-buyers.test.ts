import { eventually } from '../support/eventually.js';
import { fakePaddleApi } from '../support/fake-paddle-api.js';
import { mimeHeader } from '../support/mime-message.js';
import { storeFixture } from '../support/store-fixtures.js';
import { startStoreSales, type StoreSales } from '../support/store-sales.js';

/**
 * docs/stores.md, "The stores' APIs": Paddle's events name the buyer by customer id only, so the
 * stores service reads the customer from Paddle's API (a fake of it on loopback, at
 * PADDLE_API_URL) with the connection's API key, and the key is mailed to their address. Events
 * signed as Paddle signs them, POSTed to the gateway, applied through the license service, the
 * key mailed over SMTP.
 */
const API_KEY = 'pdl_live_apikey_01jdqzb7c9e1g3j5l7n9q1s3u5_Kp8';
const CUSTOMER = 'ctm_01jdqyx4h2m6k8p0r2t4v6x8za';
const ORDER_PRICE = 'pri_01jdqys2d4f6h8k0m2p4r6t8vy';
const PRICE = 'pri_01jdqyq3b5d7f9h1k3m5p7r9ts';
/** A failed attempt is tried again after 10 s (attempt-rules.ts): this bounds the wait for it. */
const RETRIED_WITHIN_MS = 60_000;

/** The customer as Paddle's API answers it: the entity its `customer.updated` event carries. */
const customer = (
  JSON.parse(storeFixture('paddle', 'customer-updated').toString('utf8')) as { data: unknown }
).data;

let paddleApi: Awaited<ReturnType<typeof fakePaddleApi>>;
let sales: StoreSales;
beforeAll(async () => {
  paddleApi = await fakePaddleApi(API_KEY, { [CUSTOMER]: customer });
  sales = await startStoreSales({ settings: { PADDLE_API_URL: paddleApi.url } });
});
afterEach(() => paddleApi.turn('answering'));
afterAll(async () => {
  await sales?.stop();
  await paddleApi?.close();
});

describe("docs/stores.md: a Paddle buyer is mailed the key, their address read from Paddle's API", () => {
  test("a paid order: the customer read with the connection's key, kept on the license, and mailed the key", async () => {
    const shop = await sales.shop('paddle', ORDER_PRICE, { apiKey: API_KEY });
    const asked = paddleApi.seen.length;
    const paid = await shop.deliver('transaction-completed-order');
    expect(paid).toMatchObject({
      outcome: 'applied',
      mail: [{ moment: 'created', outcome: 'sent' }],
    });
    expect(paddleApi.seen.slice(asked)).toEqual([
      { url: `/customers/${CUSTOMER}`, authorization: `Bearer ${API_KEY}` },
    ]);
    expect(await shop.only()).toMatchObject({
      license_key: paid.license_key,
      customer: { email: 'ada@example.com', name: 'Ada Lovelace' },
    });
    const letter = await sales.letterAbout(paid.license_key!, 'Your license key for');
    expect(mimeHeader(letter, 'To')).toContain('ada@example.com');
  });

  test("a subscription's renewal is mailed to the address its license holds, nothing asked again", async () => {
    const shop = await sales.shop('paddle', PRICE, { apiKey: API_KEY });
    const first = await shop.deliver('transaction-completed-subscription-first');
    expect(first.outcome).toBe('applied');
    const asked = paddleApi.seen.length;
    const renewed = await shop.deliver('transaction-completed-renewal');
    expect(renewed).toMatchObject({
      outcome: 'applied',
      license_key: first.license_key,
      mail: [{ moment: 'renewed', outcome: 'sent' }],
    });
    expect(paddleApi.seen).toHaveLength(asked);
    const letter = await sales.letterAbout(first.license_key!, 'renewed');
    expect(mimeHeader(letter, 'To')).toContain('ada@example.com');
  });

  test('without an API key the license is made and nothing is asked of Paddle; its e-mail is skipped, for want of an address', async () => {
    const shop = await sales.shop('paddle', ORDER_PRICE);
    const asked = paddleApi.seen.length;
    const paid = await shop.deliver('transaction-completed-order');
    expect(paid).toMatchObject({
      outcome: 'applied',
      mail: [
        { moment: 'created', outcome: 'skipped', detail: expect.stringMatching(/e-mail address/) },
      ],
    });
    expect(paddleApi.seen).toHaveLength(asked);
    expect((await shop.only()).customer).toBeNull();
  });

  test(
    "when Paddle's API fails, the event is kept and tried again: once it answers, the license is made and the key mailed",
    async () => {
      const shop = await sales.shop('paddle', ORDER_PRICE, { apiKey: API_KEY });
      paddleApi.turn('failing');
      await shop.send('transaction-completed-order');
      const failedOnce = async () => (await shop.events())[0]?.attempts === 1;
      await eventually('the first attempt failed', failedOnce);
      const [kept] = await shop.events();
      expect(kept).toMatchObject({ outcome: 'pending', license_key: null, mail: [] });
      expect(kept!.detail).toBe(
        `Paddle's API, asked for customer ${CUSTOMER}, answered 500 internal_error: An internal error has occurred.`,
      );
      expect(await shop.licenses()).toHaveLength(0);

      paddleApi.turn('answering');
      const applied = async () => (await shop.events())[0]?.outcome === 'applied';
      await eventually('the event applied when tried again', applied, RETRIED_WITHIN_MS);
      const [event] = await shop.events();
      expect(event).toMatchObject({ attempts: 2, mail: [{ moment: 'created', outcome: 'sent' }] });
      const letter = await sales.letterAbout(event!.license_key!, 'Your license key for');
      expect(mimeHeader(letter, 'To')).toContain('ada@example.com');
    },
    RETRIED_WITHIN_MS + 10_000,
  );
});
