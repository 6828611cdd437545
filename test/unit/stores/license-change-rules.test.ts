import {
  decideStoreEvent,
  graceHasPassed,
  type LinkedLicense,
  type ProductMapping,
} from '../../../services/stores/license-change-rules.js';
import type { StoreEvent, StoreEventFacts } from '../../../services/stores/store-events.js';

const at = (iso: string) => new Date(iso);
const mapping: ProductMapping = { productId: 7, planId: 3, renewal: 'gateway', durationDays: null };
const checkoutMapping: ProductMapping = { ...mapping, renewal: 'checkout' };

function event(facts: StoreEventFacts, occurredAt = '2026-06-01T00:00:00Z'): StoreEvent {
  return {
    eventId: 'evt_1',
    occurredAt: at(occurredAt),
    externalIds: ['price_1'],
    orderId: 'in_1',
    subscriptionId: 'sub_1',
    customer: { id: 'cus_1', email: 'buyer@example.com', name: null },
    ...facts,
  };
}

function license(overrides: Partial<LinkedLicense> = {}): LinkedLicense {
  return {
    licenseKey: 'k1',
    status: 'active',
    planId: 3,
    expiresAt: at('2026-07-01T00:00:00Z'),
    renews: true,
    pastDueSince: null,
    lastAppliedAt: at('2026-05-01T00:00:00Z'),
    subscribed: true,
    ...overrides,
  };
}

const paid = (payment: 'first' | 'renewal', periodEnd = '2026-08-01T00:00:00Z') =>
  event({
    kind: 'subscription_paid',
    payment,
    periodEnd: at(periodEnd),
    nextPaymentAt: at(periodEnd),
  });

describe('Stores: a paid one-off order makes one license', () => {
  test('created once, not expiring unless the mapping gives a duration', () => {
    expect(decideStoreEvent(event({ kind: 'order_paid' }), mapping, null)).toEqual({
      outcome: 'apply',
      changes: [
        {
          kind: 'create',
          productId: 7,
          planId: 3,
          expiresAt: null,
          autoRenew: false,
          nextPaymentAt: null,
        },
      ],
    });
    const year = decideStoreEvent(
      event({ kind: 'order_paid' }),
      { ...mapping, durationDays: 365 },
      null,
    );
    expect(year).toMatchObject({
      changes: [{ kind: 'create', expiresAt: at('2027-06-01T00:00:00Z') }],
    });
  });
  test('an order that has its license already changes nothing', () => {
    expect(decideStoreEvent(event({ kind: 'order_paid' }), mapping, license()).outcome).toBe(
      'no_change',
    );
  });
  test('an order for an id no mapping names is unmapped', () => {
    expect(decideStoreEvent(event({ kind: 'order_paid' }), null, null)).toEqual({
      outcome: 'unmapped',
    });
  });
});

describe('Stores: subscription payments create, renew and restore the license', () => {
  test('the first payment creates the license to the paid period end, renewing automatically', () => {
    expect(decideStoreEvent(paid('first'), mapping, null)).toMatchObject({
      outcome: 'apply',
      changes: [{ kind: 'create', expiresAt: at('2026-08-01T00:00:00Z'), autoRenew: true }],
    });
  });
  test('a renewal is a gateway renewal (spec 3.3: limit kept) unless the mapping says checkout', () => {
    expect(decideStoreEvent(paid('renewal'), mapping, license())).toEqual({
      outcome: 'apply',
      changes: [
        {
          kind: 'renew',
          source: 'gateway',
          expiresAt: at('2026-08-01T00:00:00Z'),
          nextPaymentAt: at('2026-08-01T00:00:00Z'),
        },
      ],
    });
    expect(decideStoreEvent(paid('renewal'), checkoutMapping, license())).toMatchObject({
      changes: [{ kind: 'renew', source: 'checkout' }],
    });
  });
  test('a payment of a price mapped to another plan moves the license to it, then renews', () => {
    const other = { ...checkoutMapping, planId: 4 };
    expect(decideStoreEvent(paid('renewal'), other, license())).toMatchObject({
      outcome: 'apply',
      changes: [
        { kind: 'plan', planId: 4 },
        { kind: 'renew', source: 'checkout' },
      ],
    });
    // A variant changed within the paid period (Lemon Squeezy's `subscription_updated`).
    expect(decideStoreEvent(paid('renewal', '2026-07-01T00:00:00Z'), other, license())).toEqual({
      outcome: 'apply',
      changes: [{ kind: 'plan', planId: 4 }],
    });
  });
  test('a payment for a period already on the license changes nothing', () => {
    expect(decideStoreEvent(paid('renewal', '2026-07-01T00:00:00Z'), mapping, license())).toEqual({
      outcome: 'no_change',
      reason: 'the period is already paid',
    });
  });
  test('paid again after failed payments: active, the past-due mark cleared, renewed', () => {
    const suspended = license({ status: 'suspended', pastDueSince: at('2026-05-20T00:00:00Z') });
    expect(decideStoreEvent(paid('renewal'), mapping, suspended)).toMatchObject({
      changes: [
        { kind: 'status', status: 'active' },
        { kind: 'past_due', since: null },
        { kind: 'renew' },
      ],
    });
  });
  test("an admin's own suspension is not lifted by a payment", () => {
    const changes = decideStoreEvent(paid('renewal'), mapping, license({ status: 'suspended' }));
    expect(changes).toMatchObject({ changes: [{ kind: 'renew' }] });
  });
  test('a resubscription pays the cancelled license again: the same key, never a second, renewing', () => {
    expect(
      decideStoreEvent(paid('first'), mapping, license({ status: 'cancelled' })),
    ).toMatchObject({
      changes: [
        { kind: 'status', status: 'active' },
        { kind: 'renew' },
        { kind: 'auto_renew', autoRenew: true, nextPaymentAt: at('2026-08-01T00:00:00Z') },
      ],
    });
  });
  test("the subscription's payment on the license its order made: the subscription's now, to the period paid, renewing", () => {
    // The order's mapping gave it a year; the subscription pays a month.
    const ordered = license({ subscribed: false, expiresAt: at('2027-05-01T00:00:00Z') });
    for (const payment of ['first', 'renewal'] as const) {
      expect(decideStoreEvent(paid(payment), mapping, ordered)).toEqual({
        outcome: 'apply',
        changes: [
          { kind: 'expiry', expiresAt: at('2026-08-01T00:00:00Z') },
          { kind: 'auto_renew', autoRenew: true, nextPaymentAt: at('2026-08-01T00:00:00Z') },
        ],
      });
    }
  });
});

describe('Stores: failed payments, cancellations and endings', () => {
  test('a failed payment marks the subscription past due once; grace then suspends', () => {
    const failed = event({ kind: 'payment_failed' });
    expect(decideStoreEvent(failed, mapping, license())).toEqual({
      outcome: 'apply',
      changes: [{ kind: 'past_due', since: at('2026-06-01T00:00:00Z') }],
    });
    expect(
      decideStoreEvent(failed, mapping, license({ pastDueSince: at('2026-05-30T00:00:00Z') }))
        .outcome,
    ).toBe('no_change');
    const since = at('2026-06-01T00:00:00Z');
    expect(graceHasPassed(since, 3, at('2026-06-03T23:59:59Z'))).toBe(false);
    expect(graceHasPassed(since, 3, at('2026-06-04T00:00:00Z'))).toBe(true);
    expect(graceHasPassed(since, 0, since)).toBe(true);
  });
  test('cancelled at period end: auto-renewal off, the license runs to its expiry', () => {
    expect(decideStoreEvent(event({ kind: 'cancel_scheduled' }), mapping, license())).toEqual({
      outcome: 'apply',
      changes: [{ kind: 'auto_renew', autoRenew: false, nextPaymentAt: null }],
    });
    expect(
      decideStoreEvent(
        event({ kind: 'cancel_withdrawn', nextPaymentAt: null }),
        mapping,
        license(),
      ),
    ).toMatchObject({ changes: [{ kind: 'auto_renew', autoRenew: true }] });
  });
  test('a subscription ended is a cancelled license (spec 3.1 status) that no longer renews, once', () => {
    const ended = event({ kind: 'subscription_ended' });
    expect(decideStoreEvent(ended, mapping, license())).toEqual({
      outcome: 'apply',
      changes: [
        { kind: 'status', status: 'cancelled' },
        { kind: 'auto_renew', autoRenew: false, nextPaymentAt: null },
      ],
    });
    // Its cancellation scheduled before turned auto-renewal off already.
    expect(decideStoreEvent(ended, mapping, license({ renews: false }))).toEqual({
      outcome: 'apply',
      changes: [{ kind: 'status', status: 'cancelled' }],
    });
    expect(decideStoreEvent(ended, mapping, license({ status: 'revoked' }))).toEqual({
      outcome: 'apply',
      changes: [{ kind: 'auto_renew', autoRenew: false, nextPaymentAt: null }],
    });
    const over = license({ status: 'cancelled', renews: false });
    expect(decideStoreEvent(ended, mapping, over).outcome).toBe('no_change');
  });
  test('a plan change moves the same key to the mapped plan now', () => {
    const other = { ...mapping, planId: 4 };
    expect(decideStoreEvent(event({ kind: 'plan_changed' }), other, license())).toEqual({
      outcome: 'apply',
      changes: [{ kind: 'plan', planId: 4 }],
    });
    expect(decideStoreEvent(event({ kind: 'plan_changed' }), mapping, license()).outcome).toBe(
      'no_change',
    );
    expect(decideStoreEvent(event({ kind: 'plan_changed' }), null, license()).outcome).toBe(
      'unmapped',
    );
  });
});

describe('Stores: refunds and chargebacks take back what they refund', () => {
  test('a full refund of the order or first payment revokes the license', () => {
    const refund = event({ kind: 'refunded', full: true, periodStart: null });
    expect(decideStoreEvent(refund, mapping, license())).toEqual({
      outcome: 'apply',
      changes: [{ kind: 'status', status: 'revoked' }],
    });
  });
  test("a refunded renewal takes back that period only: the expiry returns to the period's start", () => {
    const refund = event({ kind: 'refunded', full: true, periodStart: at('2026-06-01T00:00:00Z') });
    expect(decideStoreEvent(refund, mapping, license())).toEqual({
      outcome: 'apply',
      changes: [
        { kind: 'expiry', expiresAt: at('2026-06-01T00:00:00Z') },
        { kind: 'auto_renew', autoRenew: false, nextPaymentAt: null },
      ],
    });
  });
  test('a partial refund is recorded and changes nothing', () => {
    const refund = event({ kind: 'refunded', full: false, periodStart: null });
    expect(decideStoreEvent(refund, mapping, license()).outcome).toBe('no_change');
  });
  test('a chargeback revokes', () => {
    expect(decideStoreEvent(event({ kind: 'chargeback' }), mapping, license())).toMatchObject({
      changes: [{ kind: 'status', status: 'revoked' }],
    });
  });
});

describe('Stores: resumptions and the order of events', () => {
  test('a resumed subscription makes the same license active again and renewing', () => {
    const resumed = event({
      kind: 'resumed',
      periodEnd: at('2026-09-01T00:00:00Z'),
      nextPaymentAt: at('2026-09-01T00:00:00Z'),
    });
    expect(decideStoreEvent(resumed, mapping, license({ status: 'cancelled' }))).toMatchObject({
      changes: [
        { kind: 'status', status: 'active' },
        { kind: 'renew', expiresAt: at('2026-09-01T00:00:00Z') },
        { kind: 'auto_renew', autoRenew: true },
      ],
    });
    expect(decideStoreEvent(resumed, mapping, license({ status: 'revoked' })).outcome).toBe(
      'no_change',
    );
  });
  test('an event older than the last one applied does not undo it', () => {
    const late = event({ kind: 'subscription_ended' }, '2026-04-30T23:59:59Z');
    expect(decideStoreEvent(late, mapping, license())).toEqual({ outcome: 'stale' });
  });
  test('an event the license does not depend on changes nothing', () => {
    expect(
      decideStoreEvent(event({ kind: 'other', type: 'customer.updated' }), mapping, license())
        .outcome,
    ).toBe('no_change');
  });
  test('events on a subscription without a license change nothing, except its payment and its endings', () => {
    for (const facts of [{ kind: 'payment_failed' }, { kind: 'cancel_scheduled' }] as const) {
      expect(decideStoreEvent(event(facts), mapping, null).outcome).toBe('no_change');
    }
  });
});
