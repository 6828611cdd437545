import type { StoreConnectionRecord } from '../stores.js';

/** A subscription's invoice, as far as a refund or dispute of its payment needs it. */
export interface PaidInvoice {
  subscriptionId: string | null;
  /** Its subscription's first payment (`subscription_create`), not a renewal. */
  first: boolean;
  /** When the period it paid for began: a refund takes the license back to it. */
  periodStart: Date | null;
}

/** A store's customer as its API tells: where the buyer's e-mail goes, and their name. */
export interface StoreBuyer {
  email: string;
  name: string | null;
}

/** What Stripe's API tells that its events leave out. */
export interface StripeApi {
  /** The price ids of a Checkout Session's line items, in their order. */
  checkoutSessionPriceIds(connection: StoreConnectionRecord, sessionId: string): Promise<string[]>;
  /** The invoice a payment paid (given, or found by its payment intent); null for none. */
  paidInvoice(
    connection: StoreConnectionRecord,
    payment: { invoiceId: string | null; paymentIntentId: string | null },
  ): Promise<PaidInvoice | null>;
}

/** A connection that has an API key: the key, and the mode that says which account it is of. */
export type KeyedConnection = Pick<StoreConnectionRecord, 'mode'> & { api_key: string };

/** What Paddle's API tells that its events leave out. */
export interface PaddleApi {
  /** The customer an event names by id (`ctm_…`). */
  paddleCustomer(connection: KeyedConnection, customerId: string): Promise<StoreBuyer>;
}

/**
 * What the stores' APIs tell that their events leave out (docs/stores.md, "The stores' APIs"):
 * a Stripe Checkout Session's line items, the invoice a charge paid, a Paddle customer's e-mail
 * address. Each call has a timeout.
 */
export type StoreApi = StripeApi & PaddleApi;

/** A failure that trying again will not cure (a setting missing): the event fails at once. */
export class LastingFailure extends Error {}
