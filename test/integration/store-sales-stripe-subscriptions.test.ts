import { eventually } from '../support/eventually.js';
import { editedFixture } from '../support/store-fixtures.js';
import { daysAgo, startStoreSales, type Shop, type StoreSales } from '../support/store-sales.js';

/**
 * docs/stores.md, Stripe's subscriptions end to end: each row of the table, its events signed as
 * Stripe signs them, POSTed to the gateway, applied through the license service, the buyer mailed
 * over SMTP.
 */
const PRICE = 'price_1QbXg92eZvKYlo2CwZ1dT6Ke';
const OLD_PRICE = 'price_1QbXf22eZvKYlo2C7Hn3pS0a';
const SUBSCRIPTION = 'sub_1QbXkL2eZvKYlo2CmT4rVg8s';
/** The first invoice's period end, and the renewal's (invoice-paid-subscription-cycle). */
const FIRST_END = '2027-11-23T08:00:50.000Z';
const RENEWED_END = '2028-11-22T08:00:50.000Z';

let sales: StoreSales;
beforeAll(async () => {
  sales = await startStoreSales();
});
afterAll(() => sales?.stop());

const stripe = (name: string, ...changes: [string, unknown][]) =>
  editedFixture('stripe', name, ...changes);
/** The fixture as Stripe sends it at `date` (its `created`, in seconds), under its own event id. */
const sentAt = (name: string, date: Date, ...changes: [string, unknown][]) =>
  stripe(
    name,
    ['id', `evt_${name.slice(0, 12)}${date.getTime()}`],
    ['created', Math.floor(date.getTime() / 1000)],
    ...changes,
  );
const raiseLimit = (licenseKey: string) =>
  sales.system.transport.call('license.updateLicense', {
    license_key: licenseKey,
    activation_limit: 10,
  });

describe("docs/stores.md: a Stripe subscription's life on one license, end to end", () => {
  test('the first paid invoice makes one license to the period paid, renewing; a renewal is a gateway one, keeping an admin-raised limit', async () => {
    const shop = await sales.shop('stripe', PRICE);
    // A subscription's Checkout Session leaves the payment to its invoice.
    expect((await shop.deliver('checkout-session-completed-subscription')).outcome).toBe(
      'no_change',
    );
    const first = await shop.deliver('invoice-paid-subscription-create');
    expect(await shop.only()).toMatchObject({
      license_key: first.license_key,
      plan_id: shop.plan.id,
      status: 'active',
      expires_at: FIRST_END,
      auto_renew: true,
      next_payment_at: FIRST_END,
      store: { subscription_id: SUBSCRIPTION },
    });
    await sales.letterAbout(first.license_key!, 'Your license key for');
    const again = await shop.deliver(
      'invoice-paid-subscription-create',
      stripe('invoice-paid-subscription-create', ['id', 'evt_1QbY2h2eZvKYlo2CsentAgain']),
    );
    expect(again.outcome).toBe('no_change');
    expect(await shop.licenses()).toHaveLength(1);

    await raiseLimit(first.license_key!);
    const renewed = await shop.deliver('invoice-paid-subscription-cycle-2024-06-20');
    expect(renewed).toMatchObject({ outcome: 'applied', license_key: first.license_key });
    expect(await shop.only()).toMatchObject({
      expires_at: RENEWED_END,
      next_payment_at: RENEWED_END,
      auto_renew: true,
      activation_limit: 10,
    });
    await sales.letterAbout(first.license_key!, 'is renewed');
  });

  test("a renewal bought through checkout (the mapping's renewal) resets an admin-raised limit to the plan's (spec 3.3)", async () => {
    const shop = await sales.shop('stripe', PRICE, { renewal: 'checkout' });
    const first = await shop.deliver('invoice-paid-subscription-create');
    await raiseLimit(first.license_key!);
    expect((await shop.only()).activation_limit).toBe(10);
    expect((await shop.deliver('invoice-paid-subscription-cycle-2024-06-20')).outcome).toBe(
      'applied',
    );
    expect(await shop.only()).toMatchObject({ expires_at: RENEWED_END, activation_limit: 2 });
  });

  test('cancelled at period end: auto-renewal off, active until it expires; ended: cancelled; resumed: the same key again', async () => {
    const shop = await sales.shop('stripe', PRICE);
    const first = await shop.deliver('invoice-paid-subscription-create');
    expect((await shop.deliver('subscription-updated-cancel-scheduled')).outcome).toBe('applied');
    expect(await shop.only()).toMatchObject({
      status: 'active',
      auto_renew: false,
      next_payment_at: null,
      expires_at: FIRST_END,
    });
    expect((await shop.deliver('subscription-deleted')).outcome).toBe('applied');
    expect((await shop.only()).status).toBe('cancelled');
    await sales.letterAbout(first.license_key!, 'is cancelled');
    const resumed = await shop.deliver(
      'subscription-resumed-2024-06-20',
      stripe('subscription-resumed-2024-06-20', ['created', 1826956900]),
    );
    expect(resumed).toMatchObject({ outcome: 'applied', license_key: first.license_key });
    expect(await shop.only()).toMatchObject({
      license_key: first.license_key,
      status: 'active',
      auto_renew: true,
    });
  });

  test('ended at once, with no cancellation scheduled: cancelled, renewing no more, and the portal shows no next payment', async () => {
    const shop = await sales.shop('stripe', PRICE);
    const first = await shop.deliver('invoice-paid-subscription-create');
    expect(await shop.only()).toMatchObject({ auto_renew: true, next_payment_at: FIRST_END });
    expect((await shop.deliver('subscription-deleted')).outcome).toBe('applied');
    expect(await shop.only()).toMatchObject({
      status: 'cancelled',
      auto_renew: false,
      next_payment_at: null,
    });
    const portal = await sales.system.transport.call('license.portalLicense', {
      license_key: first.license_key!,
    });
    expect(portal).toMatchObject({ auto_renew: false, next_payment_at: null });
  });

  test('an event older than the last one applied to its subscription is ignored: it does not undo it', async () => {
    const shop = await sales.shop('stripe', PRICE);
    await shop.deliver('invoice-paid-subscription-create');
    // The cancellation withdrawn a day after it was scheduled arrives first.
    expect((await shop.deliver('subscription-updated-cancel-withdrawn')).outcome).toBe('applied');
    const older = await shop.deliver('subscription-updated-cancel-scheduled');
    expect(older).toMatchObject({
      outcome: 'stale',
      detail: 'Older than the last event applied to its license.',
    });
    expect(await shop.only()).toMatchObject({ auto_renew: true, next_payment_at: FIRST_END });
  });

  test('moved to another price: the same key on the mapped plan', async () => {
    const shop = await sales.shop('stripe', OLD_PRICE, { otherIds: [PRICE] });
    const first = await shop.deliver(
      'invoice-paid-subscription-create',
      stripe('invoice-paid-subscription-create', [
        'data.object.lines.data.0.pricing.price_details.price',
        OLD_PRICE,
      ]),
    );
    expect((await shop.only()).plan_id).toBe(shop.plan.id);
    expect((await shop.deliver('subscription-updated-price-changed')).outcome).toBe('applied');
    expect(await shop.only()).toMatchObject({
      license_key: first.license_key,
      plan_id: shop.otherPlans[0]!.id,
      activation_limit: 5,
    });
  });

  test('a payment failed: active until the grace days pass, then suspended and the buyer told; paid again: active', async () => {
    // Two subscriptions, one failed a day ago and one four days ago, each on a connection of
    // 3 grace days.
    const [recent, overdue] = [
      await sales.shop('stripe', PRICE),
      await sales.shop('stripe', PRICE),
    ];
    const failedDaysAgo = new Map([
      [recent, 1],
      [overdue, 4],
    ]);
    for (const [shop, days] of failedDaysAgo) {
      await shop.deliver(
        'invoice-paid-subscription-create',
        sentAt('invoice-paid-subscription-create', daysAgo(30)),
      );
      const failed = await shop.deliver(
        'invoice-payment-failed',
        sentAt('invoice-payment-failed', daysAgo(days)),
      );
      expect(failed.outcome).toBe('applied');
    }
    const late = await overdue.only();
    await eventuallyStatus(overdue, 'suspended');
    await sales.letterAbout(late.license_key, 'is suspended');
    // Marked past due before it, the other was looked at by the same sweep, first (connections
    // in order): in its grace days, it is active.
    expect((await recent.only()).status).toBe('active');

    const paid = await overdue.deliver(
      'invoice-paid-subscription-cycle-2024-06-20',
      sentAt('invoice-paid-subscription-cycle-2024-06-20', daysAgo(0)),
    );
    expect(paid.outcome).toBe('applied');
    expect(await overdue.only()).toMatchObject({ status: 'active', expires_at: RENEWED_END });
  });

  test('a refunded renewal takes back that period only; a partial refund is recorded, changing nothing', async () => {
    const shop = await sales.shop('stripe', PRICE);
    const first = await shop.deliver('invoice-paid-subscription-create');
    await shop.deliver('invoice-paid-subscription-cycle-2024-06-20');
    // Refunded in part: the renewal's charge, naming its invoice (API versions before 2025-03-31).
    const partial = await shop.deliver('charge-refunded-partial-2024-06-20');
    expect(partial).toMatchObject({
      outcome: 'no_change',
      detail: 'a partial refund is recorded and changes nothing',
    });
    expect((await shop.only()).expires_at).toBe(RENEWED_END);
    const full = await shop.deliver(
      'charge-refunded-partial-2024-06-20',
      stripe(
        'charge-refunded-partial-2024-06-20',
        ['id', 'evt_3SpS2s2eZvKYlo2Crefunded'],
        ['data.object.refunded', true],
        ['data.object.amount_refunded', 4900],
      ),
    );
    expect(full).toMatchObject({ outcome: 'applied', license_key: first.license_key });
    // Back to when the renewal was charged, the first period's end: not revoked.
    expect(await shop.only()).toMatchObject({
      status: 'active',
      expires_at: '2027-11-23T08:00:53.000Z',
      auto_renew: false,
    });
  });
});

async function eventuallyStatus(shop: Shop, status: string) {
  await eventually(`the license ${status}`, async () => (await shop.only()).status === status);
}
