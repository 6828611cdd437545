import { editedFixture, storeFixture } from '../../support/store-fixtures.js';
import { readStripeEvent } from '../../../services/stores/readers/stripe-reader.js';
import type { StoreEvent } from '../../../services/stores/store-events.js';

const fixture = (name: string): Buffer => storeFixture('stripe', name);
const read = (body: Buffer | string) =>
  readStripeEvent({ body: Buffer.from(body), headers: { 'stripe-signature': 't=1,v1=00' } });
const at = (seconds: number) => new Date(seconds * 1000);

const edited = (name: string, ...changes: [path: string, value: unknown][]) =>
  editedFixture('stripe', name, ...changes);

function readEvent(body: Buffer): StoreEvent {
  const reading = read(body);
  if (!reading.ok) throw new Error(reading.reason);
  return reading.event;
}

const customer = { id: 'cus_RJk3QpZ8mLx2Nv', email: 'ada@example.com', name: 'Ada Lovelace' };
const subscriptionCustomer = { id: 'cus_RJk3QpZ8mLx2Nv', email: null, name: null };
const SUB = 'sub_1QbXkL2eZvKYlo2CmT4rVg8s';
const PRICE_YEAR = 'price_1QbXg92eZvKYlo2CwZ1dT6Ke';
const PRICE_ONE = 'price_1QbXhA2eZvKYlo2CBc9L0rYq';
const Y1 = 1826956850;
const Y2 = 1858492850;

describe('Stores: a Stripe Checkout Session', () => {
  test('a paid one-off session is an order, its line items left to a lookup by its id', () => {
    expect(readEvent(fixture('checkout-session-completed-payment'))).toEqual({
      eventId: 'evt_1QbY0d2eZvKYlo2CqH8uT1fW',
      occurredAt: at(1795420861),
      externalIds: [],
      orderId: 'pi_3QbY0a2eZvKYlo2C1mR5kZ8x',
      subscriptionId: null,
      customer,
      lookup: {
        store: 'stripe',
        checkoutSessionId: 'cs_test_a1Hk9bZqXr2Lm4Np6Qs8Tv0Wy3Bc5De7Fg9Hj1Kl3Mn5Pq7Rs9Tu1Vw3Xy5Za7',
      },
      kind: 'order_paid',
    });
  });
  test('a session paid later by a delayed method is an order, named by the invoice it made', () => {
    expect(readEvent(fixture('checkout-session-async-payment-succeeded'))).toMatchObject({
      eventId: 'evt_1QcA7h2eZvKYlo2CeP4mX9zR',
      kind: 'order_paid',
      orderId: 'in_1QcA7f2eZvKYlo2Cw3Hk8JqS',
      customer: { id: 'cus_RJk3QpZ8mLx2Nv', email: null, name: 'Ada Lovelace' },
    });
  });
  test('a session that needed no payment (a full discount) is an order, named by its id', () => {
    const body = edited(
      'checkout-session-completed-payment',
      ['data.object.payment_status', 'no_payment_required'],
      ['data.object.payment_intent', null],
    );
    expect(readEvent(body)).toMatchObject({
      kind: 'order_paid',
      orderId: 'cs_test_a1Hk9bZqXr2Lm4Np6Qs8Tv0Wy3Bc5De7Fg9Hj1Kl3Mn5Pq7Rs9Tu1Vw3Xy5Za7',
    });
  });
  test('a session completed but not yet paid is other', () => {
    const unpaid = edited('checkout-session-completed-payment', [
      'data.object.payment_status',
      'unpaid',
    ]);
    expect(readEvent(unpaid)).toMatchObject({ kind: 'other', type: 'checkout.session.completed' });
  });
  test("a subscription's session is other: its first invoice carries the payment", () => {
    expect(readEvent(fixture('checkout-session-completed-subscription'))).toMatchObject({
      kind: 'other',
      type: 'checkout.session.completed',
    });
  });
});

describe('Stores: a paid Stripe invoice', () => {
  test("a subscription's first invoice is its first payment, paid to the line's period end", () => {
    expect(readEvent(fixture('invoice-paid-subscription-create'))).toEqual({
      eventId: 'evt_1QbY2h2eZvKYlo2CfJ6kR0nM',
      occurredAt: at(1795420853),
      externalIds: [PRICE_YEAR],
      orderId: 'in_1QbY2d2eZvKYlo2CxV7nP4aB',
      subscriptionId: SUB,
      customer,
      kind: 'subscription_paid',
      payment: 'first',
      periodEnd: at(Y1),
      nextPaymentAt: at(Y1),
    });
  });
  test('a cycle invoice in the older shape (subscription, line price) is a renewal', () => {
    expect(readEvent(fixture('invoice-paid-subscription-cycle-2024-06-20'))).toEqual({
      eventId: 'evt_1SoR4g2eZvKYlo2CiU7yT6rE',
      occurredAt: at(Y1 + 5),
      externalIds: [PRICE_YEAR],
      orderId: 'in_1SoR4d2eZvKYlo2CpO9iU8yT',
      subscriptionId: SUB,
      customer,
      kind: 'subscription_paid',
      payment: 'renewal',
      periodEnd: at(Y2),
      nextPaymentAt: at(Y2),
    });
  });
  test("a plan change's invoice is a renewal with the new price, not the credited old one", () => {
    expect(readEvent(fixture('invoice-paid-subscription-update'))).toMatchObject({
      kind: 'subscription_paid',
      payment: 'renewal',
      externalIds: [PRICE_YEAR],
      periodEnd: at(Y1),
    });
  });
  test('an invoice without a subscription is an order', () => {
    expect(readEvent(fixture('invoice-paid-one-off'))).toEqual({
      eventId: 'evt_1QcB0f2eZvKYlo2CuY8tR3eW',
      occurredAt: at(1795680000),
      externalIds: [PRICE_ONE],
      orderId: 'in_1QcB0c2eZvKYlo2CqA2sD3fG',
      subscriptionId: null,
      customer,
      kind: 'order_paid',
    });
  });
  test("a subscription's invoice with no line of that subscription is refused", () => {
    const body = edited(
      'invoice-paid-subscription-create',
      ['data.object.lines.data.0.parent.subscription_item_details.subscription', 'sub_other'],
      ['data.object.lines.data.0.subscription', 'sub_other'],
    );
    expect(read(body)).toEqual({
      ok: false,
      reason: `Stripe: invoice in_1QbY2d2eZvKYlo2CxV7nP4aB has no line of subscription ${SUB}`,
    });
  });
});

describe("Stores: a Stripe subscription's changes", () => {
  test("a renewal's failed payment is payment_failed", () => {
    expect(readEvent(fixture('invoice-payment-failed'))).toEqual({
      eventId: 'evt_1SoR5e2eZvKYlo2CkL0jH9gF',
      occurredAt: at(Y1 + 3600),
      externalIds: [PRICE_YEAR],
      orderId: 'in_1SoR4d2eZvKYlo2CnB6mV7cX',
      subscriptionId: SUB,
      customer,
      kind: 'payment_failed',
    });
  });
  test('cancel_at_period_end set is a cancellation scheduled', () => {
    expect(readEvent(fixture('subscription-updated-cancel-scheduled'))).toEqual({
      eventId: 'evt_1QhK3s2eZvKYlo2CbN5mQ8rT',
      occurredAt: at(1801000000),
      externalIds: [PRICE_YEAR],
      orderId: null,
      subscriptionId: SUB,
      customer: subscriptionCustomer,
      kind: 'cancel_scheduled',
    });
  });
  test('a cancellation at a date (cancel_at) is scheduled too', () => {
    const body = edited(
      'subscription-updated-cancel-scheduled',
      ['data.object.cancel_at_period_end', false],
      ['data.object.cancel_at', Y1 - 86400],
      ['data.previous_attributes', { cancel_at: null }],
    );
    expect(readEvent(body)).toMatchObject({ kind: 'cancel_scheduled' });
  });
  test('cancel_at_period_end cleared is a cancellation withdrawn, paid again at the period end', () => {
    expect(readEvent(fixture('subscription-updated-cancel-withdrawn'))).toMatchObject({
      eventId: 'evt_1QhL9u2eZvKYlo2CwE4rT7yU',
      subscriptionId: SUB,
      kind: 'cancel_withdrawn',
      nextPaymentAt: at(Y1),
    });
  });
  test("items' prices changed is a plan change with the new prices", () => {
    expect(readEvent(fixture('subscription-updated-price-changed'))).toMatchObject({
      eventId: 'evt_1QnT8b2eZvKYlo2CrT6yU8iO',
      subscriptionId: SUB,
      externalIds: [PRICE_YEAR],
      kind: 'plan_changed',
    });
  });
  test("a renewal moves the items' periods but not their prices: other", () => {
    expect(readEvent(fixture('subscription-updated-renewed'))).toMatchObject({
      kind: 'other',
      type: 'customer.subscription.updated',
    });
  });
  test('a deleted subscription has ended', () => {
    expect(readEvent(fixture('subscription-deleted'))).toEqual({
      eventId: 'evt_1SoR4a2eZvKYlo2CmK2nL4bV',
      occurredAt: at(Y1),
      externalIds: [PRICE_YEAR],
      orderId: null,
      subscriptionId: SUB,
      customer: subscriptionCustomer,
      kind: 'subscription_ended',
    });
  });
  test("a resumed subscription in the older shape runs to the subscription's period end", () => {
    expect(readEvent(fixture('subscription-resumed-2024-06-20'))).toMatchObject({
      eventId: 'evt_1QiM0v2eZvKYlo2CpA8sD1fG',
      subscriptionId: SUB,
      kind: 'resumed',
      periodEnd: at(1833536000),
      nextPaymentAt: at(1833536000),
    });
  });
});

describe('Stores: Stripe refunds and disputes', () => {
  test("a charge refunded in full, naming no invoice, is an order's full refund", () => {
    expect(readEvent(fixture('charge-refunded-full'))).toEqual({
      eventId: 'evt_3QdC1r2eZvKYlo2C0bN3mV5x',
      occurredAt: at(1796000000),
      externalIds: [],
      orderId: 'pi_3QbY0a2eZvKYlo2C1mR5kZ8x',
      subscriptionId: null,
      customer,
      kind: 'refunded',
      full: true,
      periodStart: null,
      lookup: {
        store: 'stripe',
        paymentOf: { invoiceId: null, paymentIntentId: 'pi_3QbY0a2eZvKYlo2C1mR5kZ8x' },
      },
    });
  });
  test("an invoice's charge (older shape) refunded in part takes back no more than from its date", () => {
    expect(readEvent(fixture('charge-refunded-partial-2024-06-20'))).toMatchObject({
      orderId: 'in_1SoR4d2eZvKYlo2CpO9iU8yT',
      kind: 'refunded',
      full: false,
      periodStart: at(Y1 + 3),
      lookup: { store: 'stripe', paymentOf: { invoiceId: 'in_1SoR4d2eZvKYlo2CpO9iU8yT' } },
    });
  });
  test('a dispute opened is a chargeback of the payment', () => {
    expect(readEvent(fixture('charge-dispute-created'))).toEqual({
      eventId: 'evt_1QeD2t2eZvKYlo2CqW3eR5tY',
      occurredAt: at(1796500000),
      externalIds: [],
      orderId: 'pi_3QbY0a2eZvKYlo2C1mR5kZ8x',
      subscriptionId: null,
      customer: null,
      kind: 'chargeback',
      lookup: {
        store: 'stripe',
        paymentOf: { invoiceId: null, paymentIntentId: 'pi_3QbY0a2eZvKYlo2C1mR5kZ8x' },
      },
    });
  });
});

describe('Stores: what the Stripe reader does not read', () => {
  test('an event type it does not know is other, with its type', () => {
    expect(readEvent(fixture('customer-created'))).toEqual({
      eventId: 'evt_1QbY0c2eZvKYlo2CjK5lZ7xC',
      occurredAt: at(1795420840),
      externalIds: [],
      orderId: null,
      subscriptionId: null,
      customer: null,
      kind: 'other',
      type: 'customer.created',
    });
  });
  test('a body that is not JSON is refused', () => {
    expect(read('id=evt_1&type=invoice.paid')).toEqual({
      ok: false,
      reason: 'Stripe: the body is not JSON',
    });
  });
  test('an event without its id is refused, saying where', () => {
    const body = edited('invoice-paid-one-off', ['id', undefined]);
    expect(read(body)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^Stripe: the event is not as Stripe sends it at id: /),
    });
  });
  test('an invoice without its lines is refused, saying which event and where', () => {
    const body = edited('invoice-paid-one-off', ['data.object.lines', undefined]);
    expect(read(body)).toEqual({
      ok: false,
      reason: expect.stringMatching(
        /^Stripe: invoice\.paid evt_1QcB0f2eZvKYlo2CuY8tR3eW is not as Stripe sends it at lines: /,
      ),
    });
  });
});
