import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { StoreDelivery } from '../receiving/delivery.js';
import type { StoreCustomer, StoreEvent, StoreEventFacts } from '../store-events.js';
import type { StoreEventReading } from './reading.js';
import {
  WooAnyResource,
  WooOrder,
  WooSubscription,
  type WooOrder as Order,
  type WooSubscription as Subscription,
} from './woocommerce-payloads.js';

/**
 * What a WooCommerce webhook says happened, as a store event. The topic is in the
 * `X-WC-Webhook-Topic` header (core's `order.*`; WooCommerce Subscriptions' `subscription.created`,
 * `.updated`, `.deleted` and `.switched`), the body is the resource. Read only after its
 * `X-WC-Webhook-Signature` was checked on the same bytes.
 */
export function readWooCommerceEvent(delivery: StoreDelivery): StoreEventReading {
  const deliveryId = delivery.headers['x-wc-webhook-delivery-id']?.trim();
  if (!deliveryId) return refused('no X-WC-Webhook-Delivery-ID header');
  // The delivery id is a hash of the webhook's id and the second it was sent
  // (`WC_Webhook::get_new_delivery_id`): two events of one webhook within a second share it. With
  // the hash of the body they do not, and the same bytes sent again keep the same id.
  const eventId = `${deliveryId}:${createHash('sha256').update(delivery.body).digest('hex')}`;
  const topic = delivery.headers['x-wc-webhook-topic']?.trim();
  if (!topic) return refused('no X-WC-Webhook-Topic header');
  let json: unknown;
  try {
    json = JSON.parse(delivery.body.toString('utf8'));
  } catch {
    return refused('the body is not JSON');
  }
  switch (topic) {
    case 'order.created':
    case 'order.updated': {
      const order = WooOrder.safeParse(json);
      if (!order.success) return invalid(order.error);
      // A resubscription's order pays the subscription it resubscribes, as a renewal's does.
      const renewalOf =
        relatedSubscription(order.data, '_subscription_renewal') ??
        relatedSubscription(order.data, '_subscription_resubscribe');
      const switchOf = relatedSubscription(order.data, '_subscription_switch');
      const facts = orderFacts(topic, order.data, renewalOf, switchOf);
      const subscriptionId = renewalOf ?? switchOf;
      return read(eventId, order.data, facts, String(order.data.id), subscriptionId);
    }
    case 'subscription.created':
    case 'subscription.updated':
    case 'subscription.switched': {
      const subscription = WooSubscription.safeParse(json);
      if (!subscription.success) return invalid(subscription.error);
      const { parent_id: parentId, id } = subscription.data;
      const facts = subscriptionFacts(topic, subscription.data);
      // The parent order's id too: the order that started the subscription and the subscription
      // lead to one license, whichever of their events arrives first.
      const reading = read(
        eventId,
        subscription.data,
        facts,
        parentId ? String(parentId) : null,
        String(id),
      );
      const resubscribedFrom = wooIdText(subscription.data.resubscribed_from);
      return reading.ok && resubscribedFrom
        ? { ok: true, event: { ...reading.event, resubscribedFrom } }
        : reading;
    }
    default:
      return readOther(eventId, topic, json);
  }
}

/**
 * WooCommerce Subscriptions marks the orders it makes for a subscription with the subscription's
 * id in `meta_data`: `_subscription_renewal` on a renewal's payment, `_subscription_switch` on a
 * switch's price difference, `_subscription_resubscribe` (the ended subscription's id) on a
 * resubscription's. The order that starts a subscription is its `parent_id` and is read as any
 * order: it carries no mark of its own.
 */
function relatedSubscription(order: Order, key: string): string | null {
  return wooIdText(order.meta_data?.find((meta) => meta.key === key)?.value);
}

/** An id as WooCommerce writes it in meta and in `resubscribed_from`: a number, or its digits. */
function wooIdText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return String(value);
  return typeof value === 'string' && /^[1-9]\d{0,19}$/.test(value) ? value : null;
}

/**
 * An order's status (docs: "Order statuses"): `processing` and `completed` are paid, `refunded`
 * was given back in full. A partial refund keeps the status and lists itself in `refunds`. A
 * subscription's own orders are read from the subscription instead: a renewal's new period is the
 * subscription's `next_payment_date_gmt`, which its order does not carry.
 */
function orderFacts(
  topic: string,
  order: Order,
  renewalOf: string | null,
  switchOf: string | null,
): StoreEventFacts {
  const refunded = (order.refunds ?? []).reduce((sum, refund) => sum + Math.abs(refund.total), 0);
  if (order.status === 'refunded' || refunded > 0) {
    // A switch's refund gives back a price difference, never the purchase. A refunded renewal
    // takes back the period it paid for, which began when the renewal order was made.
    const whole = order.status === 'refunded' || refunded >= order.total;
    const periodStart = renewalOf ? (order.date_created_gmt ?? null) : null;
    return { kind: 'refunded', full: whole && !switchOf, periodStart };
  }
  if (renewalOf || switchOf) return other(`${topic} (subscription's order, ${order.status})`);
  if (order.status === 'processing' || order.status === 'completed') return { kind: 'order_paid' };
  return other(`${topic} (${order.status})`);
}

/**
 * A subscription's status (WooCommerce Subscriptions, "Subscription status guide"). WooCommerce
 * Subscriptions sends `subscription.updated` whenever a subscription's dates change, so a paid
 * renewal arrives as the subscription with its new `next_payment_date_gmt`. `active` is thus
 * read as paid until the next payment (or the end, for one that stops): the rule renews only when
 * that is later than the license's expiry, and an `active` that follows `on-hold` (a failed renewal
 * paid since) lifts the past-due mark. `on-hold` is a renewal not paid: WooCommerce Subscriptions
 * puts a subscription on hold while its renewal is charged, when the charge fails and while a
 * manual renewal awaits payment. The mark a renewal charged at once leaves is lifted by the
 * `active` that follows within seconds, long before the connection's grace days pass.
 */
function subscriptionFacts(topic: string, subscription: Subscription): StoreEventFacts {
  // A switch's webhook carries the subscription with its new line items.
  if (topic === 'subscription.switched') return { kind: 'plan_changed' };
  const nextPaymentAt = subscription.next_payment_date_gmt ?? null;
  switch (subscription.status) {
    case 'active': {
      const periodEnd = nextPaymentAt ?? subscription.end_date_gmt ?? null;
      if (!periodEnd) return other(`${topic} (active, no next payment or end date)`);
      const payment = topic === 'subscription.created' ? 'first' : 'renewal';
      return { kind: 'subscription_paid', payment, periodEnd, nextPaymentAt };
    }
    case 'on-hold':
      return { kind: 'payment_failed' };
    // Cancelled by the customer: it runs to the end of the period paid for, then is `cancelled`.
    case 'pending-cancel':
      return { kind: 'cancel_scheduled' };
    case 'cancelled':
    case 'expired':
      return { kind: 'subscription_ended' };
    default:
      return other(`${topic} (${subscription.status})`);
  }
}

/** Topics the license does not depend on, and deletions (whose body is the id alone). */
function readOther(eventId: string, topic: string, json: unknown): StoreEventReading {
  const resource = WooAnyResource.safeParse(json);
  const found = resource.success ? resource.data : {};
  const id = found.id ? String(found.id) : null;
  const event: StoreEvent = {
    eventId,
    // A deletion carries no date: the epoch, so it is never newer than an event applied.
    occurredAt: found.date_modified_gmt ?? found.date_created_gmt ?? new Date(0),
    externalIds: [],
    orderId: topic.startsWith('order.') ? id : null,
    subscriptionId: topic.startsWith('subscription.') ? id : null,
    customer: null,
    kind: 'other',
    type: topic,
  };
  return { ok: true, event };
}

function read(
  eventId: string,
  resource: Order | Subscription,
  facts: StoreEventFacts,
  orderId: string | null,
  subscriptionId: string | null,
): StoreEventReading {
  const occurredAt = resource.date_modified_gmt ?? resource.date_created_gmt;
  if (!occurredAt) return refused(`${resource.id} has no date_modified_gmt or date_created_gmt`);
  const event: StoreEvent = {
    eventId,
    occurredAt,
    externalIds: externalIdsOf(resource),
    orderId,
    subscriptionId,
    customer: customerOf(resource),
    ...facts,
  };
  return { ok: true, event };
}

/**
 * Each line's variation before its product, so a mapping of the variation (a variable product's
 * plan) is found before one of the whole product; `variation_id` 0 means a simple product.
 */
function externalIdsOf(resource: Order | Subscription): string[] {
  const ids = resource.line_items.flatMap((item) =>
    item.variation_id ? [item.variation_id, item.product_id] : [item.product_id],
  );
  return [...new Set(ids.filter((id) => id > 0).map(String))];
}

function customerOf(resource: Order | Subscription): StoreCustomer | null {
  const id = resource.customer_id ? String(resource.customer_id) : null;
  const email = resource.billing?.email || null;
  const names = [resource.billing?.first_name, resource.billing?.last_name];
  const name = names.filter(Boolean).join(' ') || null;
  return id || email || name ? { id, email, name } : null;
}

function other(type: string): StoreEventFacts {
  return { kind: 'other', type };
}

function invalid(error: z.ZodError): StoreEventReading {
  const issue = error.issues[0];
  return refused(`${issue?.path.join('.') || 'the body'}: ${issue?.message ?? 'does not match'}`);
}

function refused(reason: string): StoreEventReading {
  return { ok: false, reason: `WooCommerce: ${reason}` };
}
