import Stripe from 'stripe';
import type { StoreConnectionRecord } from '../stores.js';
import { LastingFailure, type StoreApi } from './store-api.js';

/** A call to Stripe's API gives up after this: the applier retries the event later. */
export const STRIPE_API_TIMEOUT_MS = 10_000;

/** Where Stripe's API is reached: its own address, unless a test names a server of its own. */
export interface StripeEndpoint {
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
}

/**
 * Stripe's API through the `stripe` package, with the connection's API key (a restricted key
 * that reads Checkout Sessions is enough).
 */
export function stripeStoreApi(endpoint: StripeEndpoint = {}): StoreApi {
  return {
    async checkoutSessionPriceIds(connection: StoreConnectionRecord, sessionId: string) {
      if (connection.api_key === null) {
        throw new LastingFailure(
          "A Checkout Session's line items are read from Stripe's API: set the connection's API key, then apply the event again.",
        );
      }
      const stripe = new Stripe(connection.api_key, {
        ...endpoint,
        timeout: STRIPE_API_TIMEOUT_MS,
        maxNetworkRetries: 1,
        telemetry: false,
      });
      const priceIds: string[] = [];
      // Auto-paging: a session has a few items; each page is one call within the timeout.
      for await (const item of stripe.checkout.sessions.listLineItems(sessionId, { limit: 100 })) {
        if (item.price?.id) priceIds.push(item.price.id);
      }
      return priceIds;
    },
  };
}
