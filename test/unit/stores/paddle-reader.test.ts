import { editedFixture, storeFixture } from '../../support/store-fixtures.js';
import { readPaddleEvent } from '../../../services/stores/readers/paddle-reader.js';
import type { StoreEvent } from '../../../services/stores/store-events.js';

const fixture = (name: string): Buffer => storeFixture('paddle', name);
const read = (body: Buffer | string) =>
  readPaddleEvent({ body: Buffer.from(body), headers: { 'paddle-signature': 'ts=1;h1=00' } });
const at = (iso: string) => new Date(iso);

const edited = (name: string, ...changes: [path: string, value: unknown][]) =>
  editedFixture('paddle', name, ...changes);

function readEvent(body: Buffer): StoreEvent {
  const reading = read(body);
  if (!reading.ok) throw new Error(reading.reason);
  return reading.event;
}

const CTM = 'ctm_01jdqyx4h2m6k8p0r2t4v6x8za';
const SUB = 'sub_01jdqz7ew5c9g1j3m5p7r9t1vx';
const PRI_YEAR = 'pri_01jdqyq3b5d7f9h1k3m5p7r9ts';
const RENEWAL_TXN = 'txn_01kc4f0d2f4h6k8m0p2r4t6v8x';
const ORDER_TXN = 'txn_01jdqz7pq1s3u5w7y9a1c3e5g7';
/** Paddle's events name the customer by id only: the email is read from Paddle's API later. */
const customer = { id: CTM, email: null, name: null };

describe('Stores: a completed Paddle transaction', () => {
  test('a checkout without a subscription is an order, its items the price ids', () => {
    expect(readEvent(fixture('transaction-completed-order'))).toEqual({
      eventId: 'evt_01jdqz8m5p7r9t1v3x5z7b9d1f',
      occurredAt: at('2026-11-20T10:00:09.201Z'),
      externalIds: ['pri_01jdqys2d4f6h8k0m2p4r6t8vy'],
      orderId: ORDER_TXN,
      subscriptionId: null,
      customer,
      kind: 'order_paid',
    });
  });
  test("a subscription's checkout is its first payment, paid to the billing period's end", () => {
    expect(readEvent(fixture('transaction-completed-subscription-first'))).toEqual({
      eventId: 'evt_01jdqz9q8s0u2w4y6a8c0e2g4j',
      occurredAt: at('2026-11-20T10:00:11.442Z'),
      externalIds: [PRI_YEAR],
      orderId: 'txn_01jdqz6m8p0r2t4v6x8z0b2d4f',
      subscriptionId: SUB,
      customer,
      kind: 'subscription_paid',
      payment: 'first',
      periodEnd: at('2027-11-20T10:00:04.771Z'),
      nextPaymentAt: at('2027-11-20T10:00:04.771Z'),
    });
  });
  test('a transaction Paddle billed for the next period is a renewal', () => {
    expect(readEvent(fixture('transaction-completed-renewal'))).toMatchObject({
      orderId: RENEWAL_TXN,
      subscriptionId: SUB,
      kind: 'subscription_paid',
      payment: 'renewal',
      periodEnd: at('2028-11-20T10:00:04.771Z'),
    });
  });
  test("a payment method's change completes a transaction that pays nothing: other", () => {
    expect(readEvent(fixture('transaction-completed-payment-method-change'))).toMatchObject({
      kind: 'other',
      type: 'transaction.completed',
    });
  });
  test('a one-time charge on a subscription pays for no period: other', () => {
    const body = edited('transaction-completed-renewal', ['data.origin', 'subscription_charge']);
    expect(readEvent(body)).toMatchObject({ kind: 'other', type: 'transaction.completed' });
  });
  test('a change of items billed now is a payment of the period, not a renewal', () => {
    const body = edited('transaction-completed-renewal', ['data.origin', 'subscription_update']);
    expect(readEvent(body)).toMatchObject({ kind: 'subscription_paid', payment: 'first' });
  });
  test('an event that carries the customer gives its email', () => {
    const body = edited('transaction-completed-order', [
      'data.customer',
      { id: CTM, email: 'ada@example.com', name: 'Ada Lovelace' },
    ]);
    expect(readEvent(body).customer).toEqual({
      id: CTM,
      email: 'ada@example.com',
      name: 'Ada Lovelace',
    });
  });
  test("a subscription's transaction without a billing period is refused", () => {
    const body = edited('transaction-completed-renewal', ['data.billing_period', null]);
    expect(read(body)).toEqual({
      ok: false,
      reason: `Paddle: transaction ${RENEWAL_TXN} of a subscription has no billing_period`,
    });
  });
});

describe("Stores: a Paddle subscription's changes", () => {
  test("a renewal's failed payment is payment_failed", () => {
    expect(readEvent(fixture('transaction-payment-failed-renewal'))).toEqual({
      eventId: 'evt_01kc4f1e3g5j7l9n1q3s5u7w9y',
      occurredAt: at('2027-11-20T10:00:06.144Z'),
      externalIds: [PRI_YEAR],
      orderId: RENEWAL_TXN,
      subscriptionId: SUB,
      customer,
      kind: 'payment_failed',
    });
  });
  test('a card declined at checkout, tried again there, is other', () => {
    expect(readEvent(fixture('transaction-payment-failed-checkout'))).toMatchObject({
      kind: 'other',
      type: 'transaction.payment_failed',
    });
  });
  test('a subscription past due is payment_failed', () => {
    expect(readEvent(fixture('subscription-past-due'))).toEqual({
      eventId: 'evt_01kc4f1f4h6k8m0p2r4t6v8x0z',
      occurredAt: at('2027-11-20T10:00:06.301Z'),
      externalIds: [PRI_YEAR],
      orderId: null,
      subscriptionId: SUB,
      customer,
      kind: 'payment_failed',
    });
  });
  test('a scheduled change to cancel is a cancellation scheduled', () => {
    expect(readEvent(fixture('subscription-updated-cancel-scheduled'))).toEqual({
      eventId: 'evt_01jkm3c5e7g9j1l3n5q7s9u1w3',
      occurredAt: at('2027-02-14T18:40:03.927Z'),
      externalIds: [PRI_YEAR],
      orderId: null,
      subscriptionId: SUB,
      customer,
      kind: 'cancel_scheduled',
    });
  });
  test('an active subscription with no scheduled change renews: a cancellation withdrawn', () => {
    expect(readEvent(fixture('subscription-updated-cancel-removed'))).toMatchObject({
      eventId: 'evt_01jm8d4f6h8k0m2p4r6t8v0x2z',
      subscriptionId: SUB,
      kind: 'cancel_withdrawn',
      nextPaymentAt: at('2027-11-20T10:00:04.771Z'),
    });
  });
  test('a paused subscription updated is other', () => {
    const body = edited(
      'subscription-updated-cancel-removed',
      ['data.status', 'paused'],
      ['data.next_billed_at', null],
    );
    expect(readEvent(body)).toMatchObject({ kind: 'other', type: 'subscription.updated' });
  });
  test('an item created with the update is a plan change with the new price ids', () => {
    expect(readEvent(fixture('subscription-updated-price-changed'))).toMatchObject({
      eventId: 'evt_01jrg5n7q9s1u3w5y7a9c1e3g5',
      subscriptionId: SUB,
      externalIds: ['pri_01jdqyr8c0e2g4j6l8n0q2s4uw'],
      kind: 'plan_changed',
    });
  });
  test("an inactive item's price is not among the ids", () => {
    const body = edited('subscription-updated-price-changed', ['data.items.0.status', 'inactive']);
    expect(readEvent(body).externalIds).toEqual([]);
  });
  test('a canceled subscription has ended', () => {
    expect(readEvent(fixture('subscription-canceled'))).toMatchObject({
      eventId: 'evt_01kc4e9z1b3d5f7h9k1m3p5r7t',
      subscriptionId: SUB,
      kind: 'subscription_ended',
    });
  });
  test('a resumed subscription runs to its billing period end', () => {
    expect(readEvent(fixture('subscription-resumed'))).toMatchObject({
      eventId: 'evt_01jwk6p8r0t2v4x6z8b0d2f4h6',
      subscriptionId: SUB,
      kind: 'resumed',
      periodEnd: at('2028-06-01T09:00:12.220Z'),
      nextPaymentAt: at('2028-06-01T09:00:12.220Z'),
    });
  });
});

describe('Stores: Paddle adjustments', () => {
  test('a refund pending approval is other: it may be rejected', () => {
    expect(readEvent(fixture('adjustment-created-refund-pending'))).toMatchObject({
      kind: 'other',
      type: 'adjustment.created',
    });
  });
  test("a subscription's refund, once approved, takes the license back to when it was made", () => {
    expect(readEvent(fixture('adjustment-updated-refund-approved'))).toEqual({
      eventId: 'evt_01kcx6r8t0v2x4z6b8d0f2h4k6',
      occurredAt: at('2027-12-02T16:41:09.512Z'),
      externalIds: [],
      orderId: RENEWAL_TXN,
      subscriptionId: SUB,
      customer,
      kind: 'refunded',
      full: true,
      periodStart: at('2027-12-02T14:05:33.182Z'),
    });
  });
  test("an order's partial refund approved is partial, of no period", () => {
    const body = edited(
      'adjustment-updated-refund-approved',
      ['data.type', 'partial'],
      ['data.subscription_id', null],
      ['data.transaction_id', ORDER_TXN],
    );
    expect(readEvent(body)).toMatchObject({
      orderId: ORDER_TXN,
      subscriptionId: null,
      kind: 'refunded',
      full: false,
      periodStart: null,
    });
  });
  test('an adjustment made before Paddle gave adjustments a type is read as partial', () => {
    const body = edited('adjustment-updated-refund-approved', ['data.type', undefined]);
    expect(readEvent(body)).toMatchObject({ kind: 'refunded', full: false });
  });
  test('a refund rejected is other', () => {
    const body = edited('adjustment-updated-refund-approved', ['data.status', 'rejected']);
    expect(readEvent(body)).toMatchObject({ kind: 'other', type: 'adjustment.updated' });
  });
  test('a chargeback is a chargeback of its transaction', () => {
    expect(readEvent(fixture('adjustment-created-chargeback'))).toEqual({
      eventId: 'evt_01jfz4d6f8h0k2m4p6r8t0v2x4',
      occurredAt: at('2026-12-18T03:12:57.660Z'),
      externalIds: [],
      orderId: ORDER_TXN,
      subscriptionId: null,
      customer,
      kind: 'chargeback',
    });
  });
  test("a chargeback's later change (its reversal) is other", () => {
    const body = edited(
      'adjustment-created-chargeback',
      ['event_type', 'adjustment.updated'],
      ['data.status', 'reversed'],
    );
    expect(readEvent(body)).toMatchObject({ kind: 'other', type: 'adjustment.updated' });
  });
});

describe('Stores: what the Paddle reader does not read', () => {
  test('an event type it does not know is other, with its type', () => {
    expect(readEvent(fixture('customer-updated'))).toEqual({
      eventId: 'evt_01jdqz5k7m9p1r3t5v7x9z1b3d',
      occurredAt: at('2026-11-20T09:57:02.118Z'),
      externalIds: [],
      orderId: null,
      subscriptionId: null,
      customer: null,
      kind: 'other',
      type: 'customer.updated',
    });
  });
  test('a body that is not JSON is refused', () => {
    expect(read('<xml/>')).toEqual({ ok: false, reason: 'Paddle: the body is not JSON' });
  });
  test('an event whose occurred_at is not a time is refused, saying where', () => {
    const body = edited('transaction-completed-order', ['occurred_at', 'yesterday']);
    expect(read(body)).toEqual({
      ok: false,
      reason: expect.stringMatching(
        /^Paddle: the event is not as Paddle sends it at occurred_at: /,
      ),
    });
  });
  test('a transaction without its items is refused, saying which event and where', () => {
    const body = edited('transaction-completed-order', ['data.items', undefined]);
    expect(read(body)).toEqual({
      ok: false,
      reason: expect.stringMatching(
        /^Paddle: transaction\.completed evt_01jdqz8m5p7r9t1v3x5z7b9d1f is not as Paddle sends it at items: /,
      ),
    });
  });
});
