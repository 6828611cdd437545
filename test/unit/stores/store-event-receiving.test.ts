import type { LicensingError } from '../../../libs/contracts/index.js';
import { storeFixture, editedFixture } from '../../support/store-fixtures.js';
import { SECRET, signedHeaders, storeServiceHarness } from '../../support/store-service-harness.js';
import { waitingCall } from '../../support/license-handler-harness.js';

const samples = [
  ['stripe', 'invoice-paid-subscription-create'],
  ['paddle', 'transaction-completed-subscription-first'],
  ['lemonsqueezy', 'order_created'],
  ['woocommerce', 'order_processing'],
] as const;

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: LicensingError) => error.code,
  );

describe('Stores: a delivery signed as its store signs is recorded once (docs/stores.md, the signature)', () => {
  test.each(samples)('%s: answered recorded, written once, pending', async (provider, name) => {
    const h = storeServiceHarness();
    const connection = await h.connect(provider);
    const body = storeFixture(provider, name);
    expect(await h.deliver(connection, body)).toEqual({ received: 'recorded' });
    const [event] = h.stores.allEvents();
    expect(event).toMatchObject({ outcome: 'pending', connection_id: connection.id });
    expect(event!.type).not.toBe('unknown');
  });

  test.each(samples)(
    '%s: the same event three times, and twice at once, is one record',
    async (provider, name) => {
      const h = storeServiceHarness();
      const connection = await h.connect(provider);
      const body = storeFixture(provider, name);
      const answers = await Promise.all([h.deliver(connection, body), h.deliver(connection, body)]);
      expect(answers.map((a) => a.received).sort()).toEqual(['duplicate', 'recorded']);
      expect(await h.deliver(connection, body)).toEqual({ received: 'duplicate' });
      expect(h.stores.allEvents()).toHaveLength(1);
    },
  );

  test("Lemon Squeezy's event id is the hash of the body: other bytes are another event", async () => {
    const h = storeServiceHarness();
    const connection = await h.connect('lemonsqueezy');
    await h.deliver(connection, storeFixture('lemonsqueezy', 'order_created'));
    const edited = editedFixture('lemonsqueezy', 'order_created', ['meta.test_mode', true]);
    expect(await h.deliver(connection, edited)).toEqual({ received: 'recorded' });
    expect(h.stores.allEvents()).toHaveLength(2);
  });
});

describe('Stores: a delivery whose signature does not verify writes nothing', () => {
  test.each(samples)(
    '%s: a tampered body and a wrong secret get STORE_SIGNATURE_INVALID',
    async (provider, name) => {
      const h = storeServiceHarness();
      const connection = await h.connect(provider);
      const body = storeFixture(provider, name);
      const headers = signedHeaders(provider, body, h.clock());
      const tampered = Buffer.from(body.toString().replace(/"/, ' "'));
      expect(await refusal(h.deliver(connection, tampered, headers))).toBe(
        'STORE_SIGNATURE_INVALID',
      );
      const wrong = signedHeaders(provider, body, h.clock(), 'whsec_someone_elses');
      expect(await refusal(h.deliver(connection, body, wrong))).toBe('STORE_SIGNATURE_INVALID');
      expect(h.stores.allEvents()).toHaveLength(0);
    },
  );

  test.each(['stripe', 'paddle'] as const)(
    '%s: a signature over 300 s old is stale',
    async (provider) => {
      const h = storeServiceHarness();
      const connection = await h.connect(provider);
      const body = storeFixture(provider, samples.find(([p]) => p === provider)![1]);
      const old = signedHeaders(provider, body, new Date(h.clock().getTime() - 301_000));
      expect(await refusal(h.deliver(connection, body, old))).toBe('STORE_SIGNATURE_INVALID');
      expect(h.stores.allEvents()).toHaveLength(0);
    },
  );

  test.each(['stripe', 'paddle'] as const)(
    '%s: a signature over 300 s ahead of the clock, an hour or ten years, is refused too',
    async (provider) => {
      const h = storeServiceHarness();
      const connection = await h.connect(provider);
      const body = storeFixture(provider, samples.find(([p]) => p === provider)![1]);
      for (const aheadMs of [301_000, 3_600_000, 10 * 365 * 86_400_000]) {
        const ahead = signedHeaders(provider, body, new Date(h.clock().getTime() + aheadMs));
        expect(await refusal(h.deliver(connection, body, ahead))).toBe('STORE_SIGNATURE_INVALID');
      }
      expect(h.stores.allEvents()).toHaveLength(0);
      const skewed = signedHeaders(provider, body, new Date(h.clock().getTime() + 299_000));
      expect(await h.deliver(connection, body, skewed)).toEqual({ received: 'recorded' });
    },
  );

  test('an unknown connection is NOT_FOUND', async () => {
    const h = storeServiceHarness();
    const body = storeFixture('stripe', 'invoice-paid-subscription-create');
    expect(await refusal(h.deliver({ id: 99, provider: 'stripe' }, body))).toBe('NOT_FOUND');
  });
});

describe('Stores: a rotated signing secret keeps verifying for 24 hours', () => {
  test('signed with the secret before: recorded within 24 h, refused after', async () => {
    const h = storeServiceHarness();
    const connection = await h.connect('lemonsqueezy');
    await h.handlers['stores.updateConnection'](
      { id: connection.id, signing_secret: 'whsec_the_new_secret' },
      waitingCall(),
    );
    const body = storeFixture('lemonsqueezy', 'order_created');
    const start = h.clock().getTime();
    h.setNow(new Date(start + 24 * 3_600_000 - 1000));
    expect(await h.deliver(connection, body)).toEqual({ received: 'recorded' });
    h.setNow(new Date(start + 24 * 3_600_000));
    const other = editedFixture('lemonsqueezy', 'order_created', ['meta.test_mode', true]);
    expect(await refusal(h.deliver(connection, other))).toBe('STORE_SIGNATURE_INVALID');
    const signedNew = signedHeaders('lemonsqueezy', other, h.clock(), 'whsec_the_new_secret');
    expect(await h.deliver(connection, other, signedNew)).toEqual({ received: 'recorded' });
  });

  test('the secrets are never answered', async () => {
    const h = storeServiceHarness();
    const connection = await h.connect('stripe', { api_key: 'rk_test_restricted_key' });
    const text = JSON.stringify([
      connection,
      await h.handlers['stores.listConnections']({}, waitingCall()),
    ]);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('rk_test');
    expect(connection.api_key_set).toBe(true);
  });
});

describe('Stores: what is recorded and what is not', () => {
  test("WooCommerce's unsigned ping is answered ping and writes nothing", async () => {
    const h = storeServiceHarness();
    const connection = await h.connect('woocommerce');
    expect(await h.deliver(connection, Buffer.from('webhook_id=12'), {})).toEqual({
      received: 'ping',
    });
    expect(h.stores.allEvents()).toHaveLength(0);
  });

  test('a signed body no reader understands is recorded unreadable, once, keyed by its hash', async () => {
    const h = storeServiceHarness();
    const connection = await h.connect('stripe');
    const body = Buffer.from('{"not":"an event"}');
    expect(await h.deliver(connection, body)).toEqual({ received: 'recorded' });
    expect(await h.deliver(connection, body)).toEqual({ received: 'duplicate' });
    const [event] = h.stores.allEvents();
    expect(event).toMatchObject({ outcome: 'unreadable', due_at: null });
    expect(event!.event_id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(event!.detail).toMatch(/Stripe/);
  });

  test('the body is kept on the record and never answered', async () => {
    const h = storeServiceHarness();
    const connection = await h.connect('stripe');
    const body = storeFixture('stripe', 'invoice-paid-subscription-create');
    await h.deliver(connection, body);
    const [event] = h.stores.allEvents();
    expect(Buffer.from(event!.body, 'base64')).toEqual(body);
    const listed = await h.handlers['stores.listEvents'](
      { connection_id: null, outcome: null, page: 1, per_page: 10 },
      waitingCall(),
    );
    expect(JSON.stringify(listed)).not.toContain(event!.body.slice(0, 40));
    expect(Object.keys(listed.events[0]!)).not.toContain('body');
  });
});
