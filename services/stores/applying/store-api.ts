import type { StoreConnectionRecord } from '../stores.js';

/**
 * What a store's API tells that its events leave out: a Stripe Checkout Session's line items
 * (docs/stores.md, "Mapped by"). Each call has a timeout.
 */
export interface StoreApi {
  /** The price ids of a Checkout Session's line items, in their order. */
  checkoutSessionPriceIds(connection: StoreConnectionRecord, sessionId: string): Promise<string[]>;
}

/** A failure that trying again will not cure (a setting missing): the event fails at once. */
export class LastingFailure extends Error {}
