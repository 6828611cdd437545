import type { StoreConnectionRecord } from '../stores.js';

/** A subscription's invoice, as far as a refund or dispute of its payment needs it. */
export interface PaidInvoice {
  subscriptionId: string | null;
  /** Its subscription's first payment (`subscription_create`), not a renewal. */
  first: boolean;
  /** When the period it paid for began: a refund takes the license back to it. */
  periodStart: Date | null;
}

/**
 * What a store's API tells that its events leave out (docs/stores.md, "Mapped by"): a Stripe
 * Checkout Session's line items, and the invoice a charge paid. Each call has a timeout.
 */
export interface StoreApi {
  /** The price ids of a Checkout Session's line items, in their order. */
  checkoutSessionPriceIds(connection: StoreConnectionRecord, sessionId: string): Promise<string[]>;
  /** The invoice a payment paid (given, or found by its payment intent); null for none. */
  paidInvoice(
    connection: StoreConnectionRecord,
    payment: { invoiceId: string | null; paymentIntentId: string | null },
  ): Promise<PaidInvoice | null>;
}

/** A failure that trying again will not cure (a setting missing): the event fails at once. */
export class LastingFailure extends Error {}
