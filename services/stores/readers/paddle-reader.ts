import type { z } from 'zod';
import type { StoreDelivery } from '../receiving/delivery.js';
import type { StoreCustomer, StoreEvent, StoreEventFacts } from '../store-events.js';
import { parseAs, readJsonBody, Unreadable, type StoreEventReading } from './reading.js';
import {
  PaddleAdjustment,
  PaddleEnvelope,
  PaddleSubscription,
  PaddleTransaction,
} from './paddle-payloads.js';

type Envelope = z.infer<typeof PaddleEnvelope>;
/** What an event says of its order, subscription and customer: the ids the service finds by. */
type Ids = Pick<StoreEvent, 'externalIds' | 'orderId' | 'subscriptionId' | 'customer'>;

/**
 * An item added by an update is created with it: one created this close to the subscription's
 * `updated_at` means the update changed its prices.
 */
const ADDED_WITH_UPDATE_MS = 60_000;

/**
 * What a Paddle Billing event, its signature already checked, says happened (docs/stores.md).
 * An order is its transaction (`txn_…`), which its adjustments name. The customer's email is
 * null unless the event carries the customer: the service reads it from Paddle's API by id.
 */
export function readPaddleEvent(delivery: StoreDelivery): StoreEventReading {
  return readJsonBody('Paddle', delivery, (json) =>
    readEnvelope(parse(PaddleEnvelope, json, 'the event')),
  );
}

function parse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  return parseAs(schema, value, what, 'Paddle');
}

function readEnvelope(envelope: Envelope): StoreEventReading {
  const data = envelope.data;
  const what = `${envelope.event_type} ${envelope.event_id}`;
  switch (envelope.event_type) {
    case 'transaction.completed':
      return readCompleted(envelope, parse(PaddleTransaction, data, what));
    case 'transaction.payment_failed': {
      // A declined card at checkout is tried again there; only a renewal's failure leaves a
      // subscription unpaid (Paddle then also sends subscription.past_due).
      const transaction = parse(PaddleTransaction, data, what);
      if (!transaction.subscription_id || transaction.origin !== 'subscription_recurring') {
        return other(envelope);
      }
      return event(envelope, transactionIds(transaction), { kind: 'payment_failed' });
    }
    case 'subscription.past_due':
      return event(envelope, subscriptionIds(parse(PaddleSubscription, data, what)), {
        kind: 'payment_failed',
      });
    case 'subscription.updated':
      return readUpdated(envelope, parse(PaddleSubscription, data, what));
    case 'subscription.canceled':
      return event(envelope, subscriptionIds(parse(PaddleSubscription, data, what)), {
        kind: 'subscription_ended',
      });
    case 'subscription.resumed': {
      const subscription = parse(PaddleSubscription, data, what);
      return event(envelope, subscriptionIds(subscription), {
        kind: 'resumed',
        periodEnd: subscription.current_billing_period?.ends_at ?? null,
        nextPaymentAt: subscription.next_billed_at ?? null,
      });
    }
    case 'adjustment.created':
    case 'adjustment.updated':
      return readAdjustment(envelope, parse(PaddleAdjustment, data, what));
    default:
      return other(envelope);
  }
}

/**
 * A completed transaction: an order when it has no subscription; a subscription's renewal when
 * Paddle billed it (`subscription_recurring`, also a past due one paid late), its first payment
 * otherwise (the checkout, or a change of its items billed now). Neither a payment method's
 * change (a transaction of nothing) nor a one-time charge on the subscription pays for a period.
 */
function readCompleted(envelope: Envelope, transaction: PaddleTransaction): StoreEventReading {
  const ids = transactionIds(transaction);
  if (!transaction.subscription_id) return event(envelope, ids, { kind: 'order_paid' });
  if (
    transaction.origin === 'subscription_payment_method_change' ||
    transaction.origin === 'subscription_charge'
  ) {
    return other(envelope);
  }
  const period = transaction.billing_period;
  if (!period) {
    throw new Unreadable(`transaction ${transaction.id} of a subscription has no billing_period`);
  }
  return event(envelope, ids, {
    kind: 'subscription_paid',
    payment: transaction.origin === 'subscription_recurring' ? 'renewal' : 'first',
    periodEnd: period.ends_at,
    // The transaction does not say; a subscription renews when its period ends, and a
    // cancellation scheduled arrives as subscription.updated.
    nextPaymentAt: period.ends_at,
  });
}

/**
 * `subscription.updated` carries the subscription as it now is, not what changed. The reading
 * is the state the license follows: a cancellation scheduled; else prices changed, known by an
 * item created with the update; else an active subscription without a scheduled cancellation
 * renews (a withdrawn cancellation, or a change the license does not depend on, which the rules
 * apply as a renewing subscription's again). A pause or a past due subscription is `other`:
 * their own events say what they do.
 */
function readUpdated(envelope: Envelope, subscription: PaddleSubscription): StoreEventReading {
  const ids = subscriptionIds(subscription);
  if (subscription.scheduled_change?.action === 'cancel') {
    return event(envelope, ids, { kind: 'cancel_scheduled' });
  }
  const updated = subscription.updated_at.getTime();
  const added = subscription.items.some(
    (item) => Math.abs(item.created_at.getTime() - updated) <= ADDED_WITH_UPDATE_MS,
  );
  if (added) return event(envelope, ids, { kind: 'plan_changed' });
  const renewing = subscription.status === 'active' || subscription.status === 'trialing';
  if (renewing && !subscription.scheduled_change) {
    return event(envelope, ids, {
      kind: 'cancel_withdrawn',
      nextPaymentAt: subscription.next_billed_at ?? null,
    });
  }
  return other(envelope);
}

/**
 * A refund counts once Paddle approved it: most are created `pending_approval` and approved by
 * `adjustment.updated`; a rejected one changes nothing. `type` (`full`, `partial`) is absent from
 * adjustments made before Paddle added it: read as partial, which changes nothing.
 * Whether the refunded transaction was a renewal the adjustment does not say (it names the
 * transaction only). The reading is the conservative one: a subscription's refund takes the
 * license back to when the refund was made, never further, and does not revoke it; an order's
 * (no subscription) revokes its license.
 * A chargeback counts unless Paddle rejected or reversed it (a reversal is `other`).
 */
function readAdjustment(envelope: Envelope, adjustment: PaddleAdjustment): StoreEventReading {
  const ids: Ids = {
    externalIds: [],
    orderId: adjustment.transaction_id,
    subscriptionId: adjustment.subscription_id ?? null,
    customer: { id: adjustment.customer_id, email: null, name: null },
  };
  if (adjustment.action === 'refund' && adjustment.status === 'approved') {
    return event(envelope, ids, {
      kind: 'refunded',
      full: adjustment.type === 'full',
      periodStart: adjustment.subscription_id ? adjustment.created_at : null,
    });
  }
  if (
    adjustment.action === 'chargeback' &&
    adjustment.status !== 'rejected' &&
    adjustment.status !== 'reversed'
  ) {
    return event(envelope, ids, { kind: 'chargeback' });
  }
  return other(envelope);
}

function customerOf(
  id: string | null,
  customer: { email?: string | null; name?: string | null } | null | undefined,
): StoreCustomer | null {
  if (!id && !customer) return null;
  return { id, email: customer?.email ?? null, name: customer?.name ?? null };
}

function transactionIds(transaction: PaddleTransaction): Ids {
  const prices = transaction.items.flatMap((item) => item.price?.id ?? item.price_id ?? []);
  return {
    externalIds: [...new Set(prices)],
    orderId: transaction.id,
    subscriptionId: transaction.subscription_id ?? null,
    customer: customerOf(transaction.customer_id ?? null, transaction.customer),
  };
}

function subscriptionIds(subscription: PaddleSubscription): Ids {
  const prices = subscription.items
    .filter((item) => item.status !== 'inactive')
    .flatMap((item) => item.price?.id ?? []);
  return {
    externalIds: [...new Set(prices)],
    orderId: null,
    subscriptionId: subscription.id,
    customer: customerOf(subscription.customer_id, subscription.customer),
  };
}

function event(envelope: Envelope, ids: Ids, facts: StoreEventFacts): StoreEventReading {
  return {
    ok: true,
    event: { eventId: envelope.event_id, occurredAt: envelope.occurred_at, ...ids, ...facts },
  };
}

function other(envelope: Envelope): StoreEventReading {
  const ids: Ids = { externalIds: [], orderId: null, subscriptionId: null, customer: null };
  return event(envelope, ids, { kind: 'other', type: envelope.event_type });
}
