import {
  PADDLE_API_URLS,
  paddleStoreApi,
} from '../../../services/stores/applying/paddle-store-api.js';
import type { KeyedConnection } from '../../../services/stores/applying/store-api.js';
import { fakePaddleApi } from '../../support/fake-paddle-api.js';
import { storeFixture } from '../../support/store-fixtures.js';

const API_KEY = 'pdl_sdbx_apikey_01jdqz9v4x6z8b0d2f4h6k8m0p_Xq3';
const CUSTOMER = 'ctm_01jdqyx4h2m6k8p0r2t4v6x8za';
/** The customer as Paddle's API answers it: the entity its `customer.updated` event carries. */
const customer = (
  JSON.parse(storeFixture('paddle', 'customer-updated').toString('utf8')) as {
    data: unknown;
  }
).data;

let paddle: Awaited<ReturnType<typeof fakePaddleApi>>;
beforeAll(async () => {
  paddle = await fakePaddleApi(API_KEY, { [CUSTOMER]: customer });
});
afterEach(() => paddle.turn('answering'));
afterAll(() => paddle.close());

/** A test connection's key: the sandbox's account (unset, Paddle's sandbox API). */
const connection = (apiKey: string): KeyedConnection => ({ mode: 'test', api_key: apiKey });

describe("Stores: a Paddle customer is read from Paddle's API with the connection's key", () => {
  test('GET /customers/{id} with the key as a bearer token: the e-mail address and name', async () => {
    const before = paddle.seen.length;
    const api = paddleStoreApi({ url: paddle.url });
    await expect(api.paddleCustomer(connection(API_KEY), CUSTOMER)).resolves.toEqual({
      email: 'ada@example.com',
      name: 'Ada Lovelace',
    });
    expect(paddle.seen.slice(before)).toEqual([
      { url: `/customers/${CUSTOMER}`, authorization: `Bearer ${API_KEY}` },
    ]);
  });

  test("a refused key fails the call with Paddle's words", async () => {
    const api = paddleStoreApi({ url: paddle.url });
    await expect(
      api.paddleCustomer(connection('pdl_sdbx_apikey_revoked'), CUSTOMER),
    ).rejects.toThrow(
      `Paddle's API, asked for customer ${CUSTOMER}, answered 403 invalid_token: Invalid or revoked API key.`,
    );
  });

  test('a customer Paddle does not know fails the call, saying so', async () => {
    const api = paddleStoreApi({ url: paddle.url });
    await expect(
      api.paddleCustomer(connection(API_KEY), 'ctm_01jdqyx4h2m6k8p0r2t4v6x8zz'),
    ).rejects.toThrow(/answered 404 not_found: Entity ctm_01jdqyx4h2m6k8p0r2t4v6x8zz not found\.$/);
  });

  test("Paddle's own failure fails the call", async () => {
    paddle.turn('failing');
    const api = paddleStoreApi({ url: paddle.url });
    await expect(api.paddleCustomer(connection(API_KEY), CUSTOMER)).rejects.toThrow(
      /answered 500 internal_error: /,
    );
  });

  test('an API that never answers fails the call once its timeout passes, never a hang', async () => {
    paddle.turn('silent');
    const api = paddleStoreApi({ url: paddle.url, timeoutMs: 200 });
    await expect(api.paddleCustomer(connection(API_KEY), CUSTOMER)).rejects.toThrow(
      `Paddle's API, asked for customer ${CUSTOMER}, gave no answer within 0.2 s.`,
    );
  });

  test('an address nothing listens on fails the call, naming why', async () => {
    const gone = await fakePaddleApi(API_KEY, {});
    await gone.close();
    const api = paddleStoreApi({ url: gone.url });
    await expect(api.paddleCustomer(connection(API_KEY), CUSTOMER)).rejects.toThrow(
      /could not be reached \(ECONNREFUSED\)/,
    );
  });

  test("unset, a live connection's API is Paddle's, a test connection's Paddle's sandbox", () => {
    expect(PADDLE_API_URLS).toEqual({
      live: 'https://api.paddle.com',
      test: 'https://sandbox-api.paddle.com',
    });
  });
});
