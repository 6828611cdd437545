import { StoreEventApplier } from '../../../services/stores/applying/applier.js';
import { suspendPastGrace } from '../../../services/stores/applying/grace-sweep.js';
import { MAX_ATTEMPTS, RETRY_WAITS_MS } from '../../../services/stores/applying/attempt-rules.js';
import { stripeStoreApi } from '../../../services/stores/applying/stripe-store-api.js';
import { storeFixture } from '../../support/store-fixtures.js';
import { storeServiceHarness } from '../../support/store-service-harness.js';
import { eventually } from '../../support/eventually.js';

const PRICE = 'pri_01jdqyq3b5d7f9h1k3m5p7r9ts';
const SUBSCRIPTION = { order_id: null, subscription_id: 'sub_01jdqz7ew5c9g1j3m5p7r9t1vx' };

async function pending(graceDays = 3) {
  const h = storeServiceHarness();
  const connection = await h.connect('paddle', { grace_days: graceDays });
  await h.map(connection.id, PRICE);
  const deliver = (name: string) => h.deliver(connection, storeFixture('paddle', name));
  await deliver('transaction-completed-subscription-first');
  return { h, connection, deliver };
}

const creations = (h: ReturnType<typeof storeServiceHarness>) =>
  h.licenses.calls.filter((c) => c.method === 'createStoreLicense').length;

describe('Stores: pending events are applied once, whatever the appliers do', () => {
  test('two appliers at once never apply one event twice', async () => {
    const { h } = await pending();
    const other = h.newApplier();
    const drain = async (applier: typeof other) => {
      while (await applier.applyNext());
    };
    await Promise.all([drain(h.applier), drain(other), drain(h.applier), drain(other)]);
    expect(creations(h)).toBe(1);
    expect(h.stores.allEvents()).toMatchObject([{ outcome: 'applied', attempts: 1 }]);
  });

  test('an applier stopped mid-event: once its lease lapses another applies it, once', async () => {
    const { h } = await pending();
    const create = h.licenses.port.createStoreLicense.bind(h.licenses.port);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    h.licenses.port.createStoreLicense = async () => {
      h.licenses.port.createStoreLicense = create;
      await held;
      throw new Error('this applier stopped');
    };
    const stopped = h.applier.applyNext();
    await eventually('the event claimed', () => h.stores.allEvents()[0]!.claimed_until !== null);
    const other = h.newApplier();
    expect(await other.applyNext()).toBe(false);
    h.setNow(new Date(h.clock().getTime() + 60_000));
    expect(await other.applyNext()).toBe(true);
    release();
    await stopped;
    expect(h.stores.allEvents()).toMatchObject([
      { outcome: 'applied', attempts: 1, license_key: 'STORE-1', detail: null },
    ]);
    expect(h.licenses.all()).toHaveLength(1);
  });

  test('an application that outlasts the lease keeps its claim: no other applier takes the event', async () => {
    const { h } = await pending();
    const leaseMs = 300;
    const applier = new StoreEventApplier({ ...h.applierDeps, leaseMs });
    const other = new StoreEventApplier({ ...h.applierDeps, leaseMs });
    const create = h.licenses.port.createStoreLicense.bind(h.licenses.port);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    h.licenses.port.createStoreLicense = async (request) => {
      await held;
      return create(request);
    };
    const slow = applier.applyNext();
    const claimedUntil = () => h.stores.allEvents()[0]!.claimed_until?.getTime() ?? 0;
    await eventually('the event claimed', () => claimedUntil() > 0);
    // The clock passes the lease three times over; each time the claim is renewed past it.
    for (let lapse = 0; lapse < 3; lapse++) {
      h.setNow(new Date(h.clock().getTime() + leaseMs));
      await eventually('the claim renewed', () => claimedUntil() > h.clock().getTime());
      expect(await other.applyNext()).toBe(false);
    }
    release();
    await slow;
    expect(h.stores.allEvents()).toMatchObject([{ outcome: 'applied', attempts: 1 }]);
    expect(creations(h)).toBe(1);
  });

  test('a failure is retried after its wait, and failed with its error after the last attempt', async () => {
    const { h } = await pending();
    h.licenses.failNext(MAX_ATTEMPTS);
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      expect(await h.applier.applyNext()).toBe(true);
      expect(h.stores.allEvents()[0]).toMatchObject({ outcome: 'pending', attempts: attempt });
      expect(await h.applier.applyNext()).toBe(false);
      h.setNow(new Date(h.clock().getTime() + RETRY_WAITS_MS[attempt - 1]!));
    }
    await h.applier.applyNext();
    expect(h.stores.allEvents()[0]).toMatchObject({
      outcome: 'failed',
      attempts: MAX_ATTEMPTS,
      detail: 'the license service did not answer',
    });
  });

  test('a license made by an attempt that stopped before linking it is mailed when the event is applied again', async () => {
    const { h } = await pending();
    const save = h.stores.links.save.bind(h.stores.links);
    h.stores.links.save = async () => {
      h.stores.links.save = save;
      throw new Error('the database went away');
    };
    expect(await h.applier.applyNext()).toBe(true);
    expect(h.stores.allEvents()[0]).toMatchObject({ outcome: 'pending', attempts: 1 });
    expect(h.mail.sent).toEqual([]);
    h.setNow(new Date(h.clock().getTime() + RETRY_WAITS_MS[0]!));
    expect(await h.applier.applyNext()).toBe(true);
    expect(h.stores.allEvents()[0]).toMatchObject({ outcome: 'applied', attempts: 2 });
    expect(creations(h)).toBe(2);
    expect(h.licenses.all()).toHaveLength(1);
    expect(h.mail.sent.map((m) => m.moment)).toEqual(['created']);
  });

  test('a started applier applies what was pending before it started', async () => {
    const { h } = await pending();
    h.applier.start();
    try {
      await eventually('the event applied', () => h.stores.allEvents()[0]!.outcome === 'applied');
    } finally {
      await h.applier.stop();
    }
  });
});

describe("Stores: a past-due license is suspended once its connection's grace days pass", () => {
  test('suspended once, by the sweep, after grace_days; not before', async () => {
    const { h, deliver } = await pending(3);
    while (await h.applier.applyNext());
    await deliver('transaction-payment-failed-renewal');
    while (await h.applier.applyNext());
    const link = await h.stores.links.find(1, SUBSCRIPTION);
    const since = link!.past_due_since!.getTime();
    const sweep = () => suspendPastGrace(h.applierDeps);
    h.setNow(new Date(since + 3 * 86_400_000 - 1000));
    expect(await sweep()).toBe(0);
    h.setNow(new Date(since + 3 * 86_400_000));
    expect(await Promise.all([sweep(), sweep()])).toEqual(expect.arrayContaining([1, 0]));
    expect(await sweep()).toBe(0);
    expect(h.licenses.get('STORE-1')!.status).toBe('suspended');
    expect(h.licenses.changes().filter((c) => c === 'update')).toHaveLength(1);
    expect(h.mail.sent.map((m) => m.moment)).toEqual(['created', 'suspended']);
  });
});

describe("Stores: a Stripe Checkout Session's items are read from Stripe's API", () => {
  test('without an API key the event fails at once, saying what to set', async () => {
    const h = storeServiceHarness({ storeApi: stripeStoreApi({ host: '127.0.0.1', port: 9 }) });
    const connection = await h.connect('stripe');
    await h.deliver(connection, storeFixture('stripe', 'checkout-session-completed-payment'));
    await h.applier.applyNext();
    const [event] = h.stores.allEvents();
    expect(event).toMatchObject({ outcome: 'failed', attempts: 1 });
    expect(event!.detail).toMatch(/API key/);
  });
});
