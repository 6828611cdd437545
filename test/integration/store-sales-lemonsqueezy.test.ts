import { eventually } from '../support/eventually.js';
import { editedFixture } from '../support/store-fixtures.js';
import { daysAgo, startStoreSales, type StoreSales } from '../support/store-sales.js';

/**
 * docs/stores.md, Lemon Squeezy's subscription rows end to end: its webhooks signed as it signs
 * them, POSTed to the gateway, applied through the license service, the buyer mailed over SMTP
 * (its one-off order: store-sales.test.ts). Where the license's expiry is renewed to a
 * subscription's `renews_at`, that date is moved a year on: a renewal's expiry must be ahead.
 */
const VARIANT = '470';
const OTHER_VARIANT = '471';
const PAID_UNTIL = '2027-06-01T10:00:00.000Z';
const RENEWED_UNTIL = '2027-07-01T10:00:00.000Z';

let sales: StoreSales;
beforeAll(async () => {
  sales = await startStoreSales();
});
afterAll(() => sales?.stop());

type Change = [string, unknown];
const ls = (name: string, ...changes: Change[]) => editedFixture('lemonsqueezy', name, ...changes);
const created = (...changes: Change[]) =>
  ls('subscription_created', ['data.attributes.renews_at', PAID_UNTIL], ...changes);
const renewed = (...changes: Change[]) =>
  ls('subscription_updated_renewed', ['data.attributes.renews_at', RENEWED_UNTIL], ...changes);
/** The order that started subscription 8811, as Lemon Squeezy sends it beside the subscription. */
const subscriptionOrder = ls(
  'order_created',
  ['data.id', '1410'],
  ['data.attributes.first_order_item.order_id', 1410],
  ['data.attributes.first_order_item.variant_id', 470],
  ['data.attributes.first_order_item.variant_name', 'Monthly'],
);
const raiseLimit = (licenseKey: string) =>
  sales.system.transport.call('license.updateLicense', {
    license_key: licenseKey,
    activation_limit: 10,
  });

describe("docs/stores.md: a Lemon Squeezy subscription's life on one license, end to end", () => {
  test('bought: its order and subscription_created make one license to renews_at, renewing; a renewal keeps an admin-raised limit', async () => {
    const shop = await sales.shop('lemonsqueezy', VARIANT);
    const order = await shop.deliver('order_created', subscriptionOrder);
    expect(order.outcome).toBe('applied');
    const started = await shop.deliver('subscription_created', created());
    expect(started).toMatchObject({ outcome: 'applied', license_key: order.license_key });
    expect((await shop.deliver('subscription_payment_success_initial')).outcome).toBe('no_change');
    expect(await shop.only()).toMatchObject({
      plan_id: shop.plan.id,
      status: 'active',
      expires_at: PAID_UNTIL,
      auto_renew: true,
      next_payment_at: PAID_UNTIL,
    });
    await sales.letterAbout(order.license_key!, 'Your license key for');

    await raiseLimit(order.license_key!);
    // The renewal's payment carries no period; the subscription_updated after it does.
    expect((await shop.deliver('subscription_payment_success_renewal')).outcome).toBe('no_change');
    expect((await shop.deliver('subscription_updated_renewed', renewed())).outcome).toBe('applied');
    expect(await shop.only()).toMatchObject({
      expires_at: RENEWED_UNTIL,
      next_payment_at: RENEWED_UNTIL,
      activation_limit: 10,
    });
    await sales.letterAbout(order.license_key!, 'is renewed');
  });

  test("a renewal bought through checkout (the mapping's renewal) resets an admin-raised limit to the plan's (spec 3.3)", async () => {
    const shop = await sales.shop('lemonsqueezy', VARIANT, { renewal: 'checkout' });
    const started = await shop.deliver('subscription_created', created());
    await raiseLimit(started.license_key!);
    await shop.deliver('subscription_updated_renewed', renewed());
    expect(await shop.only()).toMatchObject({ expires_at: RENEWED_UNTIL, activation_limit: 2 });
  });

  test('cancelled: auto-renewal off, active until it ends; resumed: renewing again; expired: cancelled, the buyer told', async () => {
    const shop = await sales.shop('lemonsqueezy', VARIANT);
    const started = await shop.deliver('subscription_created', created());
    expect((await shop.deliver('subscription_cancelled')).outcome).toBe('applied');
    expect(await shop.only()).toMatchObject({
      status: 'active',
      auto_renew: false,
      expires_at: PAID_UNTIL,
    });
    const resumed = await shop.deliver(
      'subscription_resumed',
      ls('subscription_resumed', ['data.attributes.renews_at', PAID_UNTIL]),
    );
    expect(resumed).toMatchObject({ outcome: 'applied', license_key: started.license_key });
    expect(await shop.only()).toMatchObject({ auto_renew: true, next_payment_at: PAID_UNTIL });
    expect((await shop.deliver('subscription_expired')).outcome).toBe('applied');
    expect((await shop.only()).status).toBe('cancelled');
    await sales.letterAbout(started.license_key!, 'is cancelled');
  });

  test('paused, then unpaused: the existing key again, renewed to its new renews_at; never a second license', async () => {
    const shop = await sales.shop('lemonsqueezy', VARIANT);
    const started = await shop.deliver('subscription_created', created());
    expect((await shop.deliver('subscription_updated_paused')).outcome).toBe('no_change');
    const unpaused = await shop.deliver(
      'subscription_unpaused',
      ls('subscription_unpaused', ['data.attributes.renews_at', '2027-08-01T10:00:00.000000Z']),
    );
    expect(unpaused).toMatchObject({ outcome: 'applied', license_key: started.license_key });
    expect(await shop.only()).toMatchObject({
      license_key: started.license_key,
      status: 'active',
      auto_renew: true,
      expires_at: '2027-08-01T10:00:00.000Z',
    });
  });

  test('moved to another variant: the same key on the mapped plan', async () => {
    const shop = await sales.shop('lemonsqueezy', VARIANT, { otherIds: [OTHER_VARIANT] });
    const started = await shop.deliver('subscription_created', created());
    // Lemon Squeezy tells a variant change by the subscription_updated it sends.
    const moved = await shop.deliver(
      'subscription_updated_renewed',
      ls(
        'subscription_updated_renewed',
        ['data.attributes.variant_id', 471],
        ['data.attributes.renews_at', PAID_UNTIL],
        ['data.attributes.updated_at', '2026-05-10T12:00:00.000000Z'],
      ),
    );
    expect(moved.outcome).toBe('applied');
    expect(await shop.only()).toMatchObject({
      license_key: started.license_key,
      plan_id: shop.otherPlans[0]!.id,
      activation_limit: 5,
      expires_at: PAID_UNTIL,
    });
  });

  test('a payment failed: active until the grace days pass, then suspended and the buyer told; paid again: active', async () => {
    // Two subscriptions, one failed a day ago and one four days ago, on connections of 3 grace days.
    const [recent, overdue] = [
      await sales.shop('lemonsqueezy', VARIANT),
      await sales.shop('lemonsqueezy', VARIANT),
    ];
    for (const [shop, days] of new Map([
      [recent, 1],
      [overdue, 4],
    ])) {
      await shop.deliver(
        'subscription_created',
        created(['data.attributes.updated_at', daysAgo(30).toISOString()]),
      );
      const failed = ls('subscription_payment_failed', [
        'data.attributes.updated_at',
        daysAgo(days).toISOString(),
      ]);
      expect((await shop.deliver('subscription_payment_failed', failed)).outcome).toBe('applied');
    }
    const late = await overdue.only();
    await eventually('suspended', async () => (await overdue.only()).status === 'suspended');
    await sales.letterAbout(late.license_key, 'is suspended');
    // Marked past due before it, the other was looked at by the same sweep, first (connections
    // in order): in its grace days, it is active.
    expect((await recent.only()).status).toBe('active');

    const paid = renewed(['data.attributes.updated_at', daysAgo(0).toISOString()]);
    expect((await overdue.deliver('subscription_updated_renewed', paid)).outcome).toBe('applied');
    expect(await overdue.only()).toMatchObject({ status: 'active', expires_at: RENEWED_UNTIL });
  });

  test("a refunded renewal takes back that period only; a partial refund changes nothing; the first payment's full refund revokes", async () => {
    const shop = await sales.shop('lemonsqueezy', VARIANT);
    const started = await shop.deliver('subscription_created', created());
    await shop.deliver('subscription_updated_renewed', renewed());
    const refunded = ls(
      'subscription_payment_refunded_renewal',
      ['data.attributes.created_at', PAID_UNTIL],
      ['data.attributes.updated_at', '2027-06-03T09:00:00.000000Z'],
    );
    expect((await shop.deliver('subscription_payment_refunded_renewal', refunded)).outcome).toBe(
      'applied',
    );
    // Back to when the renewal's invoice was made: the period before it stays paid.
    expect(await shop.only()).toMatchObject({
      status: 'active',
      expires_at: PAID_UNTIL,
      auto_renew: false,
    });

    const other = await sales.shop('lemonsqueezy', VARIANT);
    await other.deliver('subscription_created', created());
    expect(await other.deliver('subscription_payment_refunded_initial_partial')).toMatchObject({
      outcome: 'no_change',
      detail: 'a partial refund is recorded and changes nothing',
    });
    const whole = ls('order_refunded_full', ['data.id', '1410']);
    expect((await other.deliver('order_refunded_full', whole)).outcome).toBe('applied');
    expect((await other.only()).status).toBe('revoked');
    expect((await shop.read(started.license_key!)).status).toBe('active');
  });
});
