import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { StoreDelivery } from '../receiving/delivery.js';
import type { StoreCustomer, StoreEvent, StoreEventFacts } from '../store-events.js';
import {
  LemonSqueezyEnvelope,
  LemonSqueezyInvoice,
  LemonSqueezyObject,
  LemonSqueezyOrder,
  LemonSqueezySubscription,
} from './lemonsqueezy-payloads.js';
import type { StoreEventReading } from './reading.js';

/**
 * What a Lemon Squeezy webhook (docs.lemonsqueezy.com/help/webhooks/event-types) says happened, as
 * a store event. Read only after its `X-Signature` was checked on the same bytes.
 */
export function readLemonSqueezyEvent(delivery: StoreDelivery): StoreEventReading {
  let json: unknown;
  try {
    json = JSON.parse(delivery.body.toString('utf8'));
  } catch {
    return { ok: false, reason: 'Lemon Squeezy: the body is not JSON' };
  }
  const envelope = LemonSqueezyEnvelope.safeParse(json);
  if (!envelope.success) return refused(envelope.error, '');
  const { meta, data } = envelope.data;
  // Lemon Squeezy sends no event id: a delivery sent again (a retry, or a resend from the
  // dashboard) carries the same bytes, so the hash of the body is stored once like an id.
  const eventId = createHash('sha256').update(delivery.body).digest('hex');
  const name = meta.event_name;
  switch (data.type) {
    case 'orders': {
      const order = LemonSqueezyOrder.safeParse(data.attributes);
      if (!order.success) return refused(order.error, 'data.attributes.');
      return read(eventId, data.id, order.data, orderFacts(name, order.data), {
        orderId: data.id,
        subscriptionId: null,
        externalIds: [order.data.first_order_item.variant_id],
      });
    }
    case 'subscriptions': {
      const subscription = LemonSqueezySubscription.safeParse(data.attributes);
      if (!subscription.success) return refused(subscription.error, 'data.attributes.');
      const facts = subscriptionFacts(name, subscription.data);
      if (!facts) return { ok: false, reason: `Lemon Squeezy: ${name} has no renews_at` };
      // The subscription's order id too: the order_created sent alongside it names that order,
      // so the order and its subscription lead to one license (see `orderFacts`).
      return read(eventId, data.id, subscription.data, facts, {
        orderId: subscription.data.order_id,
        subscriptionId: data.id,
        externalIds: [subscription.data.variant_id],
      });
    }
    case 'subscription-invoices': {
      const invoice = LemonSqueezyInvoice.safeParse(data.attributes);
      if (!invoice.success) return refused(invoice.error, 'data.attributes.');
      // An invoice names its subscription (`data.id` is the invoice's own id) and no variant.
      return read(eventId, data.id, invoice.data, invoiceFacts(name, invoice.data), {
        orderId: null,
        subscriptionId: invoice.data.subscription_id,
        externalIds: [],
      });
    }
    default: {
      // License keys and anything Lemon Squeezy adds: recorded, nothing else.
      const object = LemonSqueezyObject.safeParse(data.attributes);
      if (!object.success) return refused(object.error, 'data.attributes.');
      return read(eventId, data.id, object.data, other(name), {
        orderId: null,
        subscriptionId: null,
        externalIds: [],
      });
    }
  }
}

/**
 * A paid order is a purchase. Lemon Squeezy sends `order_created` for an order that starts a
 * subscription too, alongside `subscription_created`, and the order object does not say which it
 * is. The subscription's events carry that order's id as `orderId`, so the license made by
 * whichever of the two arrives first is the one the other finds: one purchase, one license. The
 * subscription's first payment is read from `subscription_created`, the only one of them that
 * carries the variant and the paid period (`renews_at`).
 */
function orderFacts(name: string, order: LemonSqueezyOrder): StoreEventFacts {
  if (name === 'order_created' && order.status === 'paid') return { kind: 'order_paid' };
  if (name === 'order_refunded') return refund(order, null);
  return other(name);
}

/** Subscription objects: each event Lemon Squeezy sends with one, by name. */
function subscriptionFacts(
  name: string,
  subscription: LemonSqueezySubscription,
): StoreEventFacts | null {
  const renewsAt = subscription.renews_at ?? null;
  switch (name) {
    case 'subscription_created':
      if (!renewsAt) return null;
      return {
        kind: 'subscription_paid',
        payment: 'first',
        periodEnd: renewsAt,
        nextPaymentAt: renewsAt,
      };
    case 'subscription_updated':
      return updatedFacts(subscription, renewsAt);
    // Cancelled subscriptions run to `ends_at` (the "grace period" of the docs), then expire.
    case 'subscription_cancelled':
      return { kind: 'cancel_scheduled' };
    case 'subscription_expired':
      return { kind: 'subscription_ended' };
    // `subscription_resumed` takes back a cancellation during its grace period: the license never
    // stopped, it renews again. A paused subscription's collection resuming is `resumed`.
    case 'subscription_resumed':
      return { kind: 'cancel_withdrawn', nextPaymentAt: renewsAt };
    case 'subscription_unpaused':
      return { kind: 'resumed', periodEnd: renewsAt, nextPaymentAt: renewsAt };
    default:
      return other(name);
  }
}

/**
 * `subscription_updated` is Lemon Squeezy's catch-all: the subscription as it now is, without what
 * changed. It is the one event that brings a renewal's new `renews_at` (the renewal's
 * `subscription_payment_success` carries an invoice, with no period), so an active (or trial)
 * subscription is read as paid until `renews_at`: the rule renews only when that is later than the license's
 * expiry, and lifts a past-due mark once the subscription is active again. A variant change
 * arrives on the same event and cannot be told from a renewal without the previous variant.
 */
function updatedFacts(
  subscription: LemonSqueezySubscription,
  renewsAt: Date | null,
): StoreEventFacts | null {
  // An expired subscription keeps `cancelled` true: its status is read first.
  if (subscription.status === 'expired') return { kind: 'subscription_ended' };
  if (subscription.cancelled) return { kind: 'cancel_scheduled' };
  switch (subscription.status) {
    case 'active':
    case 'on_trial':
      if (!renewsAt) return null;
      return {
        kind: 'subscription_paid',
        payment: 'renewal',
        periodEnd: renewsAt,
        nextPaymentAt: renewsAt,
      };
    case 'past_due':
    case 'unpaid':
      return { kind: 'payment_failed' };
    default:
      return other(`subscription_updated (${subscription.status})`);
  }
}

/** Subscription invoices: the `subscription_payment_*` events. */
function invoiceFacts(name: string, invoice: LemonSqueezyInvoice): StoreEventFacts {
  switch (name) {
    case 'subscription_payment_failed':
      return { kind: 'payment_failed' };
    // A renewal's refund takes back the period that invoice opened; the invoice is made when
    // the period starts. The first payment's refund takes back the purchase.
    case 'subscription_payment_refunded':
      return refund(invoice, invoice.billing_reason === 'renewal' ? invoice.created_at : null);
    // Payments (`initial`, `renewal`, `updated`) and recoveries carry no period: the first is read
    // from `subscription_created`, the others from the `subscription_updated` that follows them.
    default:
      return other(`${name} (${invoice.billing_reason})`);
  }
}

/**
 * Full when what was given back is the whole total. Payloads from before Lemon Squeezy added
 * `refunded_amount` say it by the status alone: `refunded` is "fully refunded" in its docs.
 */
function refund(
  paid: { status: string; total: number; refunded_amount?: number | null | undefined },
  periodStart: Date | null,
): StoreEventFacts {
  const refunded = paid.refunded_amount;
  const full =
    refunded === null || refunded === undefined
      ? paid.status === 'refunded'
      : refunded >= paid.total;
  return { kind: 'refunded', full, periodStart };
}

function other(type: string): StoreEventFacts {
  return { kind: 'other', type };
}

interface Buyer {
  customer_id?: string | null | undefined;
  user_email?: string | null | undefined;
  user_name?: string | null | undefined;
  created_at?: Date | null | undefined;
  updated_at?: Date | null | undefined;
}

interface Links {
  orderId: string | null;
  subscriptionId: string | null;
  externalIds: readonly string[];
}

function read(
  eventId: string,
  dataId: string,
  object: Buyer,
  facts: StoreEventFacts,
  links: Links,
): StoreEventReading {
  // When Lemon Squeezy changed the object: an older event must not undo a newer one.
  const occurredAt = object.updated_at ?? object.created_at;
  if (!occurredAt) {
    return { ok: false, reason: `Lemon Squeezy: ${dataId} has no updated_at or created_at` };
  }
  const event: StoreEvent = {
    eventId,
    occurredAt,
    ...links,
    customer: customerOf(object),
    ...facts,
  };
  return { ok: true, event };
}

function customerOf(object: Buyer): StoreCustomer | null {
  const id = object.customer_id ?? null;
  const email = object.user_email || null;
  const name = object.user_name || null;
  return id || email || name ? { id, email, name } : null;
}

function refused(error: z.ZodError, within: string): StoreEventReading {
  const issue = error.issues[0];
  const where = `${within}${issue?.path.join('.') ?? ''}`.replace(/\.$/, '') || 'the body';
  return { ok: false, reason: `Lemon Squeezy: ${where}: ${issue?.message ?? 'does not match'}` };
}
