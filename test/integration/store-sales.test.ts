import { mimeBodies, mimeHeader } from '../support/mime-message.js';
import { editedFixture } from '../support/store-fixtures.js';
import { startStoreSales, type StoreSales } from '../support/store-sales.js';

/**
 * docs/stores.md end to end: a store's signed event, POSTed to the gateway, recorded by the
 * stores service, applied through the license service's RPC methods, and the key mailed to the
 * buyer through SMTP_URL, all over real HTTP, RabbitMQ and SMTP. Each store's every row:
 * store-sales-<store>*.test.ts.
 */
let sales: StoreSales;
beforeAll(async () => {
  sales = await startStoreSales();
});
afterAll(() => sales?.stop());

describe('docs/stores.md: a sale becomes a license, end to end', () => {
  test('Lemon Squeezy: a paid order makes one license, the same event three times still one, and the key is mailed', async () => {
    const { deliver, licenses, plan } = await sales.shop('lemonsqueezy', '455');
    const event = await deliver('order_created');
    expect(event).toMatchObject({ outcome: 'applied' });
    await deliver('order_created');
    await deliver('order_created');
    const made = await licenses();
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      plan_id: plan.id,
      status: 'active',
      license_key: event.license_key,
    });
    const letter = await sales.letterAbout(event.license_key!, 'Your license key for');
    expect(mimeHeader(letter, 'To')).toContain('ada@example.com');
    expect(mimeHeader(letter, 'Subject')).toContain('Plugin Shop');
    expect(mimeBodies(letter)['text/plain']).toContain(event.license_key!);
  });

  test('Lemon Squeezy: a buyer name with control or bidi characters is kept without them, and the address whatever the name holds', async () => {
    const { deliver, read } = await sales.shop('lemonsqueezy', '455');
    const names: Array<[string, string]> = [
      ['Ada\u0000Lovelace', 'Ada Lovelace'],
      ['Ada \u202Eecalevol\u202C', 'Ada ecalevol'],
      ['Ada\r\nBcc: eve@example.com', 'Ada Bcc: eve@example.com'],
      ['Ada\u200B Love\u00ADlace\u0007', 'Ada Lovelace'],
    ];
    for (const [index, [sent, kept]] of names.entries()) {
      const order = editedFixture(
        'lemonsqueezy',
        'order_created',
        ['data.id', String(1500 + index)],
        ['data.attributes.user_name', sent],
      );
      const event = await deliver('order_created', order);
      expect(event.outcome).toBe('applied');
      const license = await read(event.license_key!);
      expect(license.customer).toEqual({ email: 'ada@example.com', name: kept });
      const letter = await sales.letterAbout(event.license_key!, 'Your license key for');
      expect(mimeHeader(letter, 'To')).toContain('ada@example.com');
      expect(mimeBodies(letter)['text/plain']).toContain(`Hello ${kept},`);
    }
  });

  test("Paddle: a subscription's life on one key, through the license service", async () => {
    const PRICE = 'pri_01jdqyq3b5d7f9h1k3m5p7r9ts';
    const NEW_PRICE = 'pri_01jdqyr8c0e2g4j6l8n0q2s4uw';
    const {
      deliver,
      only: detail,
      plan,
      otherPlans,
    } = await sales.shop('paddle', PRICE, { otherIds: [NEW_PRICE] });
    const first = await deliver('transaction-completed-subscription-first');
    expect(first.outcome).toBe('applied');
    expect(await detail()).toMatchObject({
      license_key: first.license_key,
      plan_id: plan.id,
      status: 'active',
      auto_renew: true,
      expires_at: '2027-11-20T10:00:04.771Z',
      store: { subscription_id: 'sub_01jdqz7ew5c9g1j3m5p7r9t1vx' },
    });
    expect((await deliver('subscription-updated-cancel-scheduled')).outcome).toBe('applied');
    expect((await detail()).auto_renew).toBe(false);
    expect((await deliver('subscription-updated-cancel-removed')).outcome).toBe('applied');
    expect((await detail()).auto_renew).toBe(true);
    expect((await deliver('transaction-completed-renewal')).outcome).toBe('applied');
    expect((await detail()).expires_at).toBe('2028-11-20T10:00:04.771Z');
    const moved = await deliver(
      'subscription-updated-price-changed',
      editedFixture('paddle', 'subscription-updated-price-changed', [
        'occurred_at',
        '2027-12-01T00:00:00Z',
      ]),
    );
    expect(moved.outcome).toBe('applied');
    expect((await detail()).plan_id).toBe(otherPlans[0]!.id);
    const ended = await deliver(
      'subscription-canceled',
      editedFixture('paddle', 'subscription-canceled', ['occurred_at', '2027-12-02T00:00:00Z']),
    );
    expect(ended.outcome).toBe('applied');
    // Ended by the store: no renewal is shown for it, in the console or the portal.
    expect(await detail()).toMatchObject({
      status: 'cancelled',
      auto_renew: false,
      next_payment_at: null,
    });
    const portal = await sales.system.transport.call('license.portalLicense', {
      license_key: first.license_key!,
    });
    expect(portal).toMatchObject({ auto_renew: false, next_payment_at: null });
    const resumed = await deliver(
      'subscription-resumed',
      editedFixture('paddle', 'subscription-resumed', ['occurred_at', '2027-12-03T00:00:00Z']),
    );
    expect(resumed).toMatchObject({ outcome: 'applied', license_key: first.license_key });
    expect((await detail()).status).toBe('active');
  });

  test('Paddle: a refunded renewal takes its period back; a chargeback revokes an order', async () => {
    const PRICE = 'pri_01jdqyq3b5d7f9h1k3m5p7r9ts';
    const ORDER_PRICE = 'pri_01jdqys2d4f6h8k0m2p4r6t8vy';
    const { deliver, licenses, read } = await sales.shop('paddle', PRICE, {
      otherIds: [ORDER_PRICE],
    });
    const first = await deliver('transaction-completed-subscription-first');
    await deliver('transaction-completed-renewal');
    expect((await read(first.license_key!)).expires_at).toBe('2028-11-20T10:00:04.771Z');
    expect((await deliver('adjustment-updated-refund-approved')).outcome).toBe('applied');
    // The license ends where the refunded period began (the adjustment's billing period).
    const refunded = await read(first.license_key!);
    expect(refunded.auto_renew).toBe(false);
    expect(Date.parse(refunded.expires_at!)).toBeLessThan(Date.parse('2028-11-20T10:00:04.771Z'));
    const order = await deliver('transaction-completed-order');
    expect(order.outcome).toBe('applied');
    expect(await licenses()).toHaveLength(2);
    expect((await deliver('adjustment-created-chargeback')).outcome).toBe('applied');
    expect((await read(order.license_key!)).status).toBe('revoked');
    expect((await read(first.license_key!)).status).toBe('active');
  });
});

describe('docs/stores.md: an ending that arrives before its sale, end to end', () => {
  test('Lemon Squeezy: order_refunded in full sent before its order_created: the order makes a revoked license, and no key is mailed', async () => {
    const { deliver, licenses, only } = await sales.shop('lemonsqueezy', '455');
    const refund = await deliver('order_refunded_full');
    expect(refund).toMatchObject({ outcome: 'no_change', license_key: null });
    expect(refund.detail).toMatch(/kept/);
    expect(await licenses()).toEqual([]);
    const order = await deliver('order_created');
    expect(order).toMatchObject({ outcome: 'applied', mail: [{ outcome: 'skipped' }] });
    expect(await only()).toMatchObject({ license_key: order.license_key, status: 'revoked' });
    // Sent again, as a store's retry does: still the one license, still revoked.
    await deliver('order_refunded_full');
    await deliver('order_created');
    expect(await only()).toMatchObject({ license_key: order.license_key, status: 'revoked' });
    expect(sales.letters.some((raw) => raw.includes(order.license_key!))).toBe(false);
  });

  test('Paddle: a chargeback before its transaction.completed, and subscription.canceled before its first payment', async () => {
    const ORDER_PRICE = 'pri_01jdqys2d4f6h8k0m2p4r6t8vy';
    const PRICE = 'pri_01jdqyq3b5d7f9h1k3m5p7r9ts';
    const { deliver, read } = await sales.shop('paddle', ORDER_PRICE, { otherIds: [PRICE] });
    expect((await deliver('adjustment-created-chargeback')).outcome).toBe('no_change');
    const order = await deliver('transaction-completed-order');
    expect((await read(order.license_key!)).status).toBe('revoked');
    expect((await deliver('subscription-canceled')).outcome).toBe('no_change');
    const first = await deliver('transaction-completed-subscription-first');
    expect(await read(first.license_key!)).toMatchObject({
      status: 'cancelled',
      auto_renew: false,
      next_payment_at: null,
    });
  });
});
