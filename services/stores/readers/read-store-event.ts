import type { StoreProvider } from '../../../libs/contracts/stores/store-connections.js';
import { withDisplayName } from '../display-names.js';
import type { StoreDelivery } from '../receiving/delivery.js';
import { readLemonSqueezyEvent } from './lemonsqueezy-reader.js';
import { readPaddleEvent } from './paddle-reader.js';
import type { StoreEventReading } from './reading.js';
import { readStripeEvent } from './stripe-reader.js';
import { readWooCommerceEvent } from './woocommerce-reader.js';

/**
 * A delivery read by its store's reader, once its signature was checked, its buyer's name as
 * `displayName` keeps it: what every later step (the license, the e-mail) is given.
 */
export function readStoreEvent(
  provider: StoreProvider,
  delivery: StoreDelivery,
): StoreEventReading {
  const reading = readerOf(provider)(delivery);
  if (!reading.ok) return reading;
  return {
    ok: true,
    event: { ...reading.event, customer: withDisplayName(reading.event.customer) },
  };
}

function readerOf(provider: StoreProvider): (delivery: StoreDelivery) => StoreEventReading {
  switch (provider) {
    case 'stripe':
      return readStripeEvent;
    case 'paddle':
      return readPaddleEvent;
    case 'lemonsqueezy':
      return readLemonSqueezyEvent;
    case 'woocommerce':
      return readWooCommerceEvent;
  }
}

/** The name a type is given when the delivery does not say one. */
export const UNKNOWN_EVENT_TYPE = 'unknown';

/**
 * The store's own name of the event, for the event log: Stripe's `type`, Paddle's `event_type`,
 * Lemon Squeezy's `meta.event_name`, WooCommerce's topic header. Read for display only, from a
 * body that may be unreadable, so anything not a short text is `unknown`.
 */
export function storeEventType(provider: StoreProvider, delivery: StoreDelivery): string {
  if (provider === 'woocommerce') return shortText(delivery.headers['x-wc-webhook-topic']);
  let json: unknown;
  try {
    json = JSON.parse(delivery.body.toString('utf8'));
  } catch {
    return UNKNOWN_EVENT_TYPE;
  }
  const field = (value: unknown, key: string): unknown =>
    value !== null && typeof value === 'object'
      ? (value as Record<string, unknown>)[key]
      : undefined;
  switch (provider) {
    case 'stripe':
      return shortText(field(json, 'type'));
    case 'paddle':
      return shortText(field(json, 'event_type'));
    case 'lemonsqueezy':
      return shortText(field(field(json, 'meta'), 'event_name'));
  }
}

function shortText(value: unknown): string {
  return typeof value === 'string' && value.length > 0 && value.length <= 100
    ? value
    : UNKNOWN_EVENT_TYPE;
}
