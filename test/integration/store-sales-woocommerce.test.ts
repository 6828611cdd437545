import { eventually } from '../support/eventually.js';
import { mimeHeader } from '../support/mime-message.js';
import { editedFixture } from '../support/store-fixtures.js';
import { daysAgo, startStoreSales, type StoreSales } from '../support/store-sales.js';

/**
 * docs/stores.md, WooCommerce's rows end to end: orders and WooCommerce Subscriptions'
 * subscriptions as its webhooks send them (the resource, signed, its topic in a header), POSTed
 * to the gateway, applied through the license service, the buyer mailed over SMTP. The
 * subscription's dates are moved a year on where the license's expiry is renewed to them: a
 * renewal's expiry must be ahead.
 */
const VARIATION = '884';
const SUBSCRIBED = '890';
const SWITCHED_TO = '893';

let sales: StoreSales;
beforeAll(async () => {
  sales = await startStoreSales();
});
afterAll(() => sales?.stop());

const woo = (name: string, ...changes: [string, unknown][]) =>
  editedFixture('woocommerce', name, ...changes);
/** A date as WooCommerce writes its `*_gmt` fields: UTC, without a zone. */
const gmt = (date: Date) => date.toISOString().slice(0, 19);
/** The subscription paid until a year after the fixture's next payment. */
const active = (...changes: [string, unknown][]) =>
  woo('subscription_active', ['next_payment_date_gmt', '2027-06-01T10:00:02'], ...changes);
const renewed = (...changes: [string, unknown][]) =>
  woo('subscription_renewed', ['next_payment_date_gmt', '2027-07-01T10:00:02'], ...changes);
const raiseLimit = (licenseKey: string) =>
  sales.system.transport.call('license.updateLicense', {
    license_key: licenseKey,
    activation_limit: 10,
  });

describe('docs/stores.md: WooCommerce sales become licenses, end to end', () => {
  test('a paid order makes one license, its key mailed; a partial refund changes nothing, a full one revokes', async () => {
    const shop = await sales.shop('woocommerce', VARIATION);
    expect((await shop.deliver('order_pending', undefined, 'order.created')).outcome).toBe(
      'no_change',
    );
    const paid = await shop.deliver('order_processing');
    expect(paid).toMatchObject({ outcome: 'applied', order_id: '5120' });
    expect((await shop.deliver('order_completed')).outcome).toBe('no_change');
    expect(await shop.only()).toMatchObject({
      license_key: paid.license_key,
      plan_id: shop.plan.id,
      status: 'active',
      customer: { email: 'grace@example.com' },
    });
    const letter = await sales.letterAbout(paid.license_key!, 'Your license key for');
    expect(mimeHeader(letter, 'To')).toContain('grace@example.com');
    expect(await shop.deliver('order_partially_refunded')).toMatchObject({
      outcome: 'no_change',
      detail: 'a partial refund is recorded and changes nothing',
    });
    expect((await shop.only()).status).toBe('active');
    expect((await shop.deliver('order_refunded')).outcome).toBe('applied');
    expect((await shop.only()).status).toBe('revoked');
  });

  test('an order refunded in full, its event sent before the one that paid it: the paid order makes a revoked license', async () => {
    const shop = await sales.shop('woocommerce', VARIATION);
    const refunded = await shop.deliver('order_refunded', undefined, 'order.updated');
    expect(refunded).toMatchObject({ outcome: 'no_change', license_key: null });
    const paid = await shop.deliver('order_processing', undefined, 'order.created');
    expect(paid.outcome).toBe('applied');
    expect(await shop.only()).toMatchObject({ license_key: paid.license_key, status: 'revoked' });
  });

  test('a subscription bought: its parent order and its activation make one license to the next payment, renewing; a renewal keeps an admin-raised limit', async () => {
    const shop = await sales.shop('woocommerce', SUBSCRIBED);
    // Made at checkout, the subscription waits for its parent order's payment.
    expect(
      (await shop.deliver('subscription_pending', undefined, 'subscription.created')).outcome,
    ).toBe('no_change');
    // That order, paid, arrives before the subscription it activates.
    const parent = await shop.deliver(
      'renewal_order_processing',
      woo(
        'renewal_order_processing',
        ['id', 5119],
        ['meta_data', []],
        ['date_created_gmt', '2026-05-01T10:00:00'],
        ['date_modified_gmt', '2026-05-01T10:00:04'],
      ),
    );
    expect(parent.outcome).toBe('applied');
    const started = await shop.deliver('subscription_active', active(), 'subscription.updated');
    expect(started).toMatchObject({ outcome: 'applied', license_key: parent.license_key });
    expect(await shop.only()).toMatchObject({
      status: 'active',
      expires_at: '2027-06-01T10:00:02.000Z',
      auto_renew: true,
      next_payment_at: '2027-06-01T10:00:02.000Z',
    });

    await raiseLimit(parent.license_key!);
    // The renewal's order changes nothing; the subscription it moved on renews the license.
    expect((await shop.deliver('renewal_order_processing')).outcome).toBe('no_change');
    const renewal = await shop.deliver('subscription_renewed', renewed(), 'subscription.updated');
    expect(renewal.outcome).toBe('applied');
    expect(await shop.only()).toMatchObject({
      expires_at: '2027-07-01T10:00:02.000Z',
      next_payment_at: '2027-07-01T10:00:02.000Z',
      activation_limit: 10,
    });
    await sales.letterAbout(parent.license_key!, 'is renewed');
  });

  test("a renewal bought through checkout (the mapping's renewal) resets an admin-raised limit to the plan's (spec 3.3)", async () => {
    const shop = await sales.shop('woocommerce', SUBSCRIBED, { renewal: 'checkout' });
    const started = await shop.deliver('subscription_active', active(), 'subscription.updated');
    await raiseLimit(started.license_key!);
    await shop.deliver('subscription_renewed', renewed(), 'subscription.updated');
    expect(await shop.only()).toMatchObject({
      expires_at: '2027-07-01T10:00:02.000Z',
      activation_limit: 2,
    });
  });

  test('pending cancellation: auto-renewal off, active until it expires; cancelled: cancelled, the buyer told', async () => {
    const shop = await sales.shop('woocommerce', SUBSCRIBED);
    const started = await shop.deliver('subscription_active', active(), 'subscription.updated');
    const topic = 'subscription.updated';
    expect((await shop.deliver('subscription_pending_cancel', undefined, topic)).outcome).toBe(
      'applied',
    );
    expect(await shop.only()).toMatchObject({
      status: 'active',
      auto_renew: false,
      expires_at: '2027-06-01T10:00:02.000Z',
    });
    expect((await shop.deliver('subscription_cancelled', undefined, topic)).outcome).toBe(
      'applied',
    );
    expect((await shop.only()).status).toBe('cancelled');
    await sales.letterAbout(started.license_key!, 'is cancelled');
  });

  test("switched to another product's plan: the same key on the mapped plan; the switch's refund changes nothing", async () => {
    const shop = await sales.shop('woocommerce', SUBSCRIBED, { otherIds: [SWITCHED_TO] });
    const started = await shop.deliver('subscription_active', active(), 'subscription.updated');
    const switched = await shop.deliver(
      'subscription_switched',
      undefined,
      'subscription.switched',
    );
    expect(switched.outcome).toBe('applied');
    expect(await shop.only()).toMatchObject({
      license_key: started.license_key,
      plan_id: shop.otherPlans[0]!.id,
    });
    expect((await shop.deliver('switch_order_refunded')).outcome).toBe('no_change');
    expect((await shop.only()).status).toBe('active');
  });

  test('on hold (a renewal not paid): active until the grace days pass, then suspended; active again: the same license active', async () => {
    // Two subscriptions, one on hold since a day ago and one since four, on connections of 3 grace days.
    const [recent, overdue] = [
      await sales.shop('woocommerce', SUBSCRIBED),
      await sales.shop('woocommerce', SUBSCRIBED),
    ];
    const topic = 'subscription.updated';
    for (const [shop, days] of new Map([
      [recent, 1],
      [overdue, 4],
    ])) {
      await shop.deliver(
        'subscription_active',
        active(['date_modified_gmt', gmt(daysAgo(30))]),
        topic,
      );
      const held = woo('subscription_on_hold', ['date_modified_gmt', gmt(daysAgo(days))]);
      expect((await shop.deliver('subscription_on_hold', held, topic)).outcome).toBe('applied');
    }
    const late = await overdue.only();
    await eventually('suspended', async () => (await overdue.only()).status === 'suspended');
    await sales.letterAbout(late.license_key, 'is suspended');
    // Marked past due before it, the other was looked at by the same sweep, first (connections
    // in order): in its grace days, it is active.
    expect((await recent.only()).status).toBe('active');

    const paid = renewed(['date_modified_gmt', gmt(daysAgo(0))]);
    expect((await overdue.deliver('subscription_renewed', paid, topic)).outcome).toBe('applied');
    expect(await overdue.only()).toMatchObject({
      license_key: late.license_key,
      status: 'active',
      expires_at: '2027-07-01T10:00:02.000Z',
    });
  });

  test("a refunded renewal order takes back that renewal's period only", async () => {
    const shop = await sales.shop('woocommerce', SUBSCRIBED);
    await shop.deliver('subscription_active', active(), 'subscription.updated');
    await shop.deliver('subscription_renewed', renewed(), 'subscription.updated');
    const refund = await shop.deliver(
      'renewal_order_refunded',
      woo('renewal_order_refunded', ['date_created_gmt', '2027-06-01T10:00:00']),
    );
    expect(refund).toMatchObject({ outcome: 'applied', subscription_id: '5121' });
    // Back to when the renewal's order was made: the period before it stays paid.
    expect(await shop.only()).toMatchObject({
      status: 'active',
      expires_at: '2027-06-01T10:00:00.000Z',
      auto_renew: false,
    });
  });

  test('resubscribed after it ended: the existing key again, active and renewing, never a second license', async () => {
    const shop = await sales.shop('woocommerce', SUBSCRIBED);
    const first = await shop.deliver('subscription_active', active(), 'subscription.updated');
    const topic = 'subscription.updated';
    await shop.deliver('subscription_pending_cancel', undefined, topic);
    await shop.deliver('subscription_cancelled', undefined, topic);
    expect((await shop.only()).status).toBe('cancelled');
    // WooCommerce Subscriptions' resubscribe: an order naming the old subscription, and a new
    // subscription, its parent that order, that says which one it resubscribed.
    const order = await shop.deliver(
      'renewal_order_processing',
      woo(
        'renewal_order_processing',
        ['id', 5500],
        ['meta_data', [{ id: 9501, key: '_subscription_resubscribe', value: '5121' }]],
        ['date_created_gmt', '2026-08-01T09:00:00'],
        ['date_modified_gmt', '2026-08-01T09:00:04'],
      ),
    );
    expect(order.outcome).toBe('no_change');
    const again = await shop.deliver(
      'subscription_active',
      active(
        ['id', 5501],
        ['parent_id', 5500],
        ['resubscribed_from', '5121'],
        ['date_created_gmt', '2026-08-01T09:00:02'],
        ['date_modified_gmt', '2026-08-01T09:00:06'],
        ['next_payment_date_gmt', '2027-09-01T09:00:02'],
      ),
      topic,
    );
    expect(again).toMatchObject({ outcome: 'applied', license_key: first.license_key });
    expect(await shop.only()).toMatchObject({
      license_key: first.license_key,
      status: 'active',
      auto_renew: true,
      expires_at: '2027-09-01T09:00:02.000Z',
    });
    // The new subscription's own events find the license too.
    const held = active(
      ['id', 5501],
      ['parent_id', 5500],
      ['resubscribed_from', '5121'],
      ['status', 'pending-cancel'],
      ['next_payment_date_gmt', ''],
      ['end_date_gmt', '2027-09-01T09:00:02'],
      ['date_modified_gmt', '2026-08-20T09:00:00'],
    );
    expect((await shop.deliver('subscription_active', held, topic)).outcome).toBe('applied');
    expect(await shop.only()).toMatchObject({ license_key: first.license_key, auto_renew: false });
  });
});
