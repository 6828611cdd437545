import Stripe from 'stripe';
import {
  invoiceSubscription,
  lineSubscription,
  StripeInvoice,
} from '../readers/stripe-payloads.js';
import type { StoreConnectionRecord } from '../stores.js';
import { LastingFailure, type PaidInvoice, type StripeApi } from './store-api.js';

/** A call to Stripe's API gives up after this: the applier retries the event later. */
export const STRIPE_API_TIMEOUT_MS = 10_000;

/** Where Stripe's API is reached, as the `stripe` package is told: its own address unless set. */
export interface StripeEndpoint {
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
}

/** The endpoint of STRIPE_API_URL (an address alone, as the config checked); unset: Stripe's. */
export function stripeEndpoint(url: string | undefined): StripeEndpoint {
  if (url === undefined) return {};
  const { protocol, hostname, port } = new URL(url);
  const scheme = protocol === 'http:' ? 'http' : 'https';
  return {
    protocol: scheme,
    // An IPv6 address is written in brackets in a URL, but not as a host to connect to.
    host: hostname.replace(/^\[(.*)\]$/, '$1'),
    port: port === '' ? (scheme === 'http' ? 80 : 443) : Number(port),
  };
}

/**
 * Stripe's API through the `stripe` package, with the connection's API key (a restricted key
 * that reads Checkout Sessions and Invoices is enough).
 */
export function stripeStoreApi(endpoint: StripeEndpoint = {}): StripeApi {
  const client = (connection: StoreConnectionRecord, needs: string) => {
    if (connection.api_key === null) {
      throw new LastingFailure(
        `${needs} is read from Stripe's API: set the connection's API key, then apply the event again.`,
      );
    }
    return new Stripe(connection.api_key, {
      ...endpoint,
      timeout: STRIPE_API_TIMEOUT_MS,
      maxNetworkRetries: 1,
      telemetry: false,
    });
  };
  return {
    async checkoutSessionPriceIds(connection, sessionId) {
      const stripe = client(connection, "A Checkout Session's line items");
      const priceIds: string[] = [];
      // Auto-paging: a session has a few items; each page is one call within the timeout.
      for await (const item of stripe.checkout.sessions.listLineItems(sessionId, { limit: 100 })) {
        if (item.price?.id) priceIds.push(item.price.id);
      }
      return priceIds;
    },

    async paidInvoice(connection, payment) {
      const stripe = client(connection, 'The subscription a refunded or disputed payment paid');
      let invoiceId = payment.invoiceId;
      if (invoiceId === null && payment.paymentIntentId !== null) {
        // Since API version 2025-03-31 a payment names no invoice; the invoice's payments do.
        const paid = await stripe.invoicePayments.list({
          payment: { type: 'payment_intent', payment_intent: payment.paymentIntentId },
          limit: 1,
        });
        const invoice = paid.data[0]?.invoice;
        invoiceId =
          invoice === undefined ? null : typeof invoice === 'string' ? invoice : invoice.id;
      }
      if (invoiceId === null) return null;
      return paidInvoiceOf(StripeInvoice.parse(await stripe.invoices.retrieve(invoiceId)));
    },
  };
}

/** An invoice's subscription and the start of the period its subscription lines paid for. */
function paidInvoiceOf(invoice: StripeInvoice): PaidInvoice {
  const subscriptionId = invoiceSubscription(invoice);
  const starts = invoice.lines.data
    .filter((line) => subscriptionId !== null && lineSubscription(line) === subscriptionId)
    .filter((line) => line.amount >= 0)
    .map((line) => line.period.start);
  return {
    subscriptionId,
    first: invoice.billing_reason === 'subscription_create',
    periodStart: starts.length ? new Date(Math.min(...starts) * 1000) : null,
  };
}
