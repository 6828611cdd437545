/**
 * A store's event as the stores service understands it, whichever store sent it: what happened
 * (its `kind`), to which order or subscription, with the ids a mapping is keyed by. Each store's
 * reader makes these from its own payloads; the license rules decide on these alone.
 */
export type StoreEvent = StoreEventBase & StoreEventFacts;

export interface StoreCustomer {
  readonly id: string | null;
  readonly email: string | null;
  readonly name: string | null;
}

interface StoreEventBase {
  /** The store's id of the event (Stripe `evt_…`, Paddle `event_id`, …): stored once. */
  readonly eventId: string;
  /** When the store says it happened: an event older than one applied does not undo it. */
  readonly occurredAt: Date;
  /** The ids a mapping is keyed by (price, variant, product), as the event carries them. */
  readonly externalIds: readonly string[];
  readonly orderId: string | null;
  readonly subscriptionId: string | null;
  readonly customer: StoreCustomer | null;
  /**
   * The subscription this one resubscribes (WooCommerce Subscriptions' `resubscribed_from`): its
   * license is this one's, never a second.
   */
  readonly resubscribedFrom?: string;
  /** Where the service reads from the store's API what the payload leaves out. */
  readonly lookup?: StoreLookup;
}

export type StoreLookup =
  /** A Stripe Checkout Session's line items are not in its event: its `externalIds` are read. */
  | { readonly store: 'stripe'; readonly checkoutSessionId: string }
  /**
   * A Stripe charge (refunded, disputed) names its payment, not the subscription it paid for
   * (since API version 2025-03-31 not even its invoice): when no license is linked to the
   * payment itself, its invoice, subscription and period are read.
   */
  | {
      readonly store: 'stripe';
      readonly paymentOf: {
        readonly invoiceId: string | null;
        readonly paymentIntentId: string | null;
      };
    };

export type StoreEventFacts =
  /** A one-off order, paid. */
  | { readonly kind: 'order_paid' }
  /** A subscription's payment: its first, or a renewal; paid until `periodEnd`. */
  | {
      readonly kind: 'subscription_paid';
      readonly payment: 'first' | 'renewal';
      readonly periodEnd: Date;
      readonly nextPaymentAt: Date | null;
    }
  /** A subscription's payment failed; the store retries, the subscription is past due. */
  | { readonly kind: 'payment_failed' }
  /** The subscription is to end at its period's end; or that was taken back. */
  | { readonly kind: 'cancel_scheduled' }
  | { readonly kind: 'cancel_withdrawn'; readonly nextPaymentAt: Date | null }
  /** The subscription has ended (cancelled now, or at the end of its last period). */
  | { readonly kind: 'subscription_ended' }
  /** The subscription moved to another price or variant: `externalIds` are the new ones. */
  | { readonly kind: 'plan_changed' }
  /**
   * Money given back. `full` or partial; `periodStart` set when what was refunded is a renewal
   * of a subscription (the period it paid for started then), null for an order or a first payment.
   */
  | { readonly kind: 'refunded'; readonly full: boolean; readonly periodStart: Date | null }
  /** A chargeback (a dispute opened by the buyer's bank). */
  | { readonly kind: 'chargeback' }
  /** A paused or ended subscription runs again. */
  | {
      readonly kind: 'resumed';
      readonly periodEnd: Date | null;
      readonly nextPaymentAt: Date | null;
    }
  /** An event the license does not depend on: recorded, nothing else. */
  | { readonly kind: 'other'; readonly type: string };

export type StoreEventKind = StoreEventFacts['kind'];
