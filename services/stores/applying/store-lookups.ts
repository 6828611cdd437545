import type { StoreCustomer, StoreEvent } from '../store-events.js';
import type { StoreConnectionRecord, StoreLinkRecord, StoreServiceStores } from '../stores.js';
import type { StoreApi } from './store-api.js';

interface LookupDeps {
  stores: StoreServiceStores;
  storeApi: StoreApi;
}

/** The event with the ids its mapping is looked for by: a Checkout Session's from Stripe's API. */
export async function withExternalIds(
  deps: LookupDeps,
  connection: StoreConnectionRecord,
  event: StoreEvent,
): Promise<StoreEvent> {
  if (!event.lookup || !('checkoutSessionId' in event.lookup)) return event;
  const externalIds = await deps.storeApi.checkoutSessionPriceIds(
    connection,
    event.lookup.checkoutSessionId,
  );
  return { ...event, externalIds };
}

/**
 * The buyer a license is made for, as the event names them. Paddle's events name the customer by
 * id only: their e-mail address and name are read from Paddle's API with the connection's key, so
 * the license holds the address its e-mails go to. Without a key the license is made without it,
 * and its buyer is mailed nothing.
 */
export async function buyerOf(
  deps: LookupDeps,
  connection: StoreConnectionRecord,
  event: StoreEvent,
): Promise<StoreCustomer | null> {
  const { customer } = event;
  const apiKey = connection.api_key;
  if (connection.provider !== 'paddle' || !customer?.id || customer.email !== null) return customer;
  if (apiKey === null) return customer;
  const read = await deps.storeApi.paddleCustomer(
    { mode: connection.mode, api_key: apiKey },
    customer.id,
  );
  return { ...customer, email: read.email, name: customer.name ?? read.name };
}

/**
 * The event as it applies to the license of `link`: the refund of the payment that made the
 * license (the first, or the order) takes the purchase back (`revoked`), not a period.
 */
export function asFoundBy(event: StoreEvent, link: StoreLinkRecord): StoreEvent {
  const first =
    event.kind === 'refunded' && event.orderId !== null && event.orderId === link.order_id;
  return first ? { ...event, periodStart: null } : event;
}

/**
 * The license link of the event's order or subscription. A Stripe refund or dispute names only
 * its payment: a one-off order's license is linked to that payment, and when none is, the
 * payment's invoice (from Stripe's API) names the subscription it paid for, and whether it was
 * its first payment (refunded: the license is revoked) or a renewal (refunded: the license goes
 * back to the start of the period it paid for).
 */
export async function linkOfEvent(
  deps: LookupDeps,
  connection: StoreConnectionRecord,
  event: StoreEvent,
): Promise<{ event: StoreEvent; link: StoreLinkRecord | null }> {
  const find = async (e: StoreEvent) =>
    (await deps.stores.links.find(connection.id, {
      order_id: e.orderId,
      subscription_id: e.subscriptionId,
    })) ??
    // A resubscription (WooCommerce Subscriptions) has the license of what it resubscribes.
    (e.resubscribedFrom === undefined
      ? null
      : await deps.stores.links.find(connection.id, {
          order_id: null,
          subscription_id: e.resubscribedFrom,
        }));
  const link = await find(event);
  if (link) return { event: asFoundBy(event, link), link };
  if (!event.lookup || !('paymentOf' in event.lookup)) return { event, link };
  const invoice = await deps.storeApi.paidInvoice(connection, event.lookup.paymentOf);
  if (!invoice?.subscriptionId) return { event, link: null };
  const paid: StoreEvent =
    event.kind === 'refunded'
      ? {
          ...event,
          subscriptionId: invoice.subscriptionId,
          periodStart: invoice.first ? null : invoice.periodStart,
        }
      : { ...event, subscriptionId: invoice.subscriptionId };
  return { event: paid, link: await find(paid) };
}
