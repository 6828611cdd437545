import type { z } from 'zod';
import type { StoreDelivery } from '../receiving/delivery.js';
import type { StoreCustomer, StoreEvent, StoreEventFacts, StoreLookup } from '../store-events.js';
import { parseAs, readJsonBody, Unreadable, type StoreEventReading } from './reading.js';
import {
  StripeCharge,
  StripeCheckoutSession,
  StripeDispute,
  StripeEnvelope,
  StripeInvoice,
  StripeSubscription,
  StripeSubscriptionBefore,
  invoiceSubscription,
  lineSubscription,
} from './stripe-payloads.js';

type Envelope = z.infer<typeof StripeEnvelope>;
/** What an event says of its order, subscription and customer: the ids the service finds by. */
type Ids = Pick<StoreEvent, 'externalIds' | 'orderId' | 'subscriptionId' | 'customer' | 'lookup'>;

/**
 * What a Stripe event, its signature already checked, says happened (docs/stores.md).
 * `orderId`: an invoice's id; a Checkout Session's is the invoice it made, which `invoice.paid`
 * reports too (one order, one license), else its payment intent, which its refunds and disputes
 * name. A refund or dispute names its charge's invoice in API versions before 2025-03-31, the
 * payment intent since.
 */
export function readStripeEvent(delivery: StoreDelivery): StoreEventReading {
  return readJsonBody('Stripe', delivery, (json) =>
    readEnvelope(parse(StripeEnvelope, json, 'the event')),
  );
}

function parse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  return parseAs(schema, value, what, 'Stripe');
}

function readEnvelope(envelope: Envelope): StoreEventReading {
  const object = envelope.data.object;
  const what = `${envelope.type} ${envelope.id}`;
  switch (envelope.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      return readCheckout(envelope, parse(StripeCheckoutSession, object, what));
    case 'invoice.paid':
      return readInvoicePaid(envelope, parse(StripeInvoice, object, what));
    case 'invoice.payment_failed': {
      const invoice = parse(StripeInvoice, object, what);
      return event(envelope, invoiceIds(invoice, invoiceSubscription(invoice)), {
        kind: 'payment_failed',
      });
    }
    case 'customer.subscription.updated':
      return readSubscriptionUpdate(envelope, parse(StripeSubscription, object, what));
    case 'customer.subscription.deleted': {
      const subscription = parse(StripeSubscription, object, what);
      return event(envelope, subscriptionIds(subscription), { kind: 'subscription_ended' });
    }
    case 'customer.subscription.resumed': {
      const subscription = parse(StripeSubscription, object, what);
      const periodEnd = subscriptionPeriodEnd(subscription);
      return event(envelope, subscriptionIds(subscription), {
        kind: 'resumed',
        periodEnd,
        nextPaymentAt: subscription.cancel_at_period_end ? null : periodEnd,
      });
    }
    case 'charge.refunded':
      return readRefund(envelope, parse(StripeCharge, object, what));
    case 'charge.dispute.created': {
      const dispute = parse(StripeDispute, object, what);
      const ids = idsOf(dispute.payment_intent ?? dispute.charge, null, null);
      const lookup = paymentLookup(null, dispute.payment_intent ?? null);
      return event(envelope, { ...ids, lookup }, { kind: 'chargeback' });
    }
    default:
      return other(envelope);
  }
}

/**
 * A paid one-off Checkout Session. Its line items are not in the event: the service reads them
 * by the session's id. A subscription's session is `other`: its first invoice carries the payment.
 * Delayed methods (bank debits) complete the session unpaid and report the payment later.
 */
function readCheckout(
  envelope: Envelope,
  session: z.infer<typeof StripeCheckoutSession>,
): StoreEventReading {
  const paid =
    session.payment_status === 'paid' || session.payment_status === 'no_payment_required';
  if (session.mode !== 'payment' || !paid) return other(envelope);
  const customer: StoreCustomer = {
    id: session.customer ?? null,
    email: session.customer_details?.email ?? session.customer_email ?? null,
    name: session.customer_details?.name ?? null,
  };
  const orderId = session.invoice ?? session.payment_intent ?? session.id;
  return event(
    envelope,
    {
      ...idsOf(orderId, null, customer),
      lookup: { store: 'stripe', checkoutSessionId: session.id },
    },
    { kind: 'order_paid' },
  );
}

/**
 * A paid invoice: a subscription's first payment (`subscription_create`), any other of its
 * invoices a renewal (`subscription_cycle`, `subscription_update`, ...), an invoice without a
 * subscription an order. Its subscription renews at the end of the period paid, so that is the
 * next payment (a cancellation scheduled before arrives as its own event).
 */
function readInvoicePaid(envelope: Envelope, invoice: StripeInvoice): StoreEventReading {
  const subscriptionId = invoiceSubscription(invoice);
  const base = invoiceIds(invoice, subscriptionId);
  if (!subscriptionId) return event(envelope, base, { kind: 'order_paid' });
  const ends = invoice.lines.data
    .filter((line) => lineSubscription(line) === subscriptionId)
    .map((line) => line.period.end);
  if (!ends.length) {
    throw new Unreadable(`invoice ${invoice.id} has no line of subscription ${subscriptionId}`);
  }
  const periodEnd = new Date(Math.max(...ends) * 1000);
  return event(envelope, base, {
    kind: 'subscription_paid',
    payment: invoice.billing_reason === 'subscription_create' ? 'first' : 'renewal',
    periodEnd,
    nextPaymentAt: periodEnd,
  });
}

/**
 * What `previous_attributes` says changed: a cancellation scheduled or taken back (by
 * `cancel_at_period_end`, or `cancel_at` set to a date), or other prices. A renewal also lists
 * the items (their periods moved), so only a change of their prices is a change of plan.
 */
function readSubscriptionUpdate(
  envelope: Envelope,
  subscription: StripeSubscription,
): StoreEventReading {
  const before = parse(
    StripeSubscriptionBefore,
    envelope.data.previous_attributes ?? {},
    `${envelope.type} ${envelope.id} previous_attributes`,
  );
  const base = subscriptionIds(subscription);
  const cancelChanged = before.cancel_at_period_end !== undefined || before.cancel_at !== undefined;
  if (cancelChanged) {
    if (subscription.cancel_at_period_end || subscription.cancel_at) {
      return event(envelope, base, { kind: 'cancel_scheduled' });
    }
    return event(envelope, base, {
      kind: 'cancel_withdrawn',
      nextPaymentAt: subscriptionPeriodEnd(subscription),
    });
  }
  if (before.items) {
    const previous = new Set(before.items.data.map((item) => item.price.id));
    const now = new Set(base.externalIds);
    if (previous.size !== now.size || [...now].some((id) => !previous.has(id))) {
      return event(envelope, base, { kind: 'plan_changed' });
    }
  }
  return other(envelope);
}

/**
 * A refund, from `charge.refunded`: the charge says whether all of it is refunded (`refunded`),
 * which `refund.created` (one refund's amount) cannot. Whether the charge paid a subscription's
 * renewal the payload cannot tell: since 2025-03-31 a charge names no invoice, and an invoice's
 * billing reason is not in it. The reading is the conservative one. A charge that names no
 * invoice is an order's (revoked when refunded in full). One that names an invoice may have paid
 * any period of a subscription: the license loses what was paid from that charge on, never more,
 * and is not revoked.
 */
function readRefund(envelope: Envelope, charge: z.infer<typeof StripeCharge>): StoreEventReading {
  const customer: StoreCustomer = {
    id: charge.customer ?? null,
    email: charge.billing_details?.email ?? charge.receipt_email ?? null,
    name: charge.billing_details?.name ?? null,
  };
  const orderId = charge.invoice ?? charge.payment_intent ?? charge.id;
  const lookup = paymentLookup(charge.invoice ?? null, charge.payment_intent ?? null);
  // A charge naming its invoice (before API version 2025-03-31) may be a renewal's, whose period
  // began about when it was charged; the first payment's and a one-off order's are told by their
  // link, and a charge naming only its payment by its invoice (store-lookups.ts).
  return event(
    envelope,
    { ...idsOf(orderId, null, customer), lookup },
    {
      kind: 'refunded',
      full: charge.refunded,
      periodStart: charge.invoice ? new Date(charge.created * 1000) : null,
    },
  );
}

/** A charge's payment, to find the subscription it paid for when no license has its id. */
function paymentLookup(invoiceId: string | null, paymentIntentId: string | null): StoreLookup {
  return { store: 'stripe', paymentOf: { invoiceId, paymentIntentId } };
}

/**
 * The invoice's ids and customer. Its price ids are its lines' but the credits' (a plan change
 * credits the unused time of the old price, a negative line).
 */
function invoiceIds(invoice: StripeInvoice, subscriptionId: string | null): Ids {
  const prices = invoice.lines.data
    .filter((line) => line.amount >= 0)
    .map((line) => line.pricing?.price_details?.price ?? line.price?.id)
    .filter((id): id is string => id !== undefined);
  return {
    ...idsOf(invoice.id, subscriptionId, {
      id: invoice.customer ?? null,
      email: invoice.customer_email ?? null,
      name: invoice.customer_name ?? null,
    }),
    externalIds: [...new Set(prices)],
  };
}

function subscriptionIds(subscription: StripeSubscription): Ids {
  return {
    ...idsOf(null, subscription.id, { id: subscription.customer, email: null, name: null }),
    externalIds: [...new Set(subscription.items.data.map((item) => item.price.id))],
  };
}

function subscriptionPeriodEnd(subscription: StripeSubscription): Date | null {
  const ends = subscription.items.data.flatMap((item) => item.current_period_end ?? []);
  const end = ends.length ? Math.max(...ends) : subscription.current_period_end;
  return end === undefined ? null : new Date(end * 1000);
}

function idsOf(
  orderId: string | null,
  subscriptionId: string | null,
  customer: StoreCustomer | null,
): Ids {
  return { externalIds: [], orderId, subscriptionId, customer };
}

function event(envelope: Envelope, base: Ids, facts: StoreEventFacts): StoreEventReading {
  return {
    ok: true,
    event: {
      ...base,
      eventId: envelope.id,
      occurredAt: new Date(envelope.created * 1000),
      ...facts,
    },
  };
}

function other(envelope: Envelope): StoreEventReading {
  return event(envelope, idsOf(null, null, null), { kind: 'other', type: envelope.type });
}
