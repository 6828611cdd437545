import { z } from 'zod';
import { DEFAULT_PER_PAGE, Id, MAX_PAGE, MAX_PER_PAGE, Timestamp } from '../shared.js';
import { MAX_STORE_EVENT_BYTES } from './store-connections.js';

/**
 * The events a store delivered (docs/stores.md, "Receiving"): the gateway hands the exact bytes
 * and the signature headers to the stores service, which checks them, writes the event once and
 * answers before anything is applied to a license.
 */

/** The headers a store's delivery is read by: its signature and, for WooCommerce, its topic. */
export const storeEventHeaders = [
  'stripe-signature',
  'paddle-signature',
  'x-signature',
  'x-event-name',
  'x-wc-webhook-signature',
  'x-wc-webhook-topic',
  'x-wc-webhook-resource',
  'x-wc-webhook-event',
  'x-wc-webhook-id',
  'x-wc-webhook-delivery-id',
] as const;

const HeaderValue = z.string().max(4096);

export const ReceiveStoreEventRequest = z.strictObject({
  connection_id: Id,
  /** The body exactly as received, base64: its signature is over these bytes. */
  body: z.base64().max(Math.ceil(MAX_STORE_EVENT_BYTES / 3) * 4),
  headers: z.partialRecord(z.enum(storeEventHeaders), HeaderValue),
});
export type ReceiveStoreEventRequest = z.infer<typeof ReceiveStoreEventRequest>;

/**
 * What the store is answered once the event is written (or found written before): `ping` for
 * WooCommerce's unsigned creation ping, which records nothing.
 */
export const ReceivedStoreEvent = z.object({
  received: z.enum(['recorded', 'duplicate', 'ping']),
});
export type ReceivedStoreEvent = z.infer<typeof ReceivedStoreEvent>;

/**
 * Where a received event stands: `pending` until applied (and while retried after a failure);
 * then what applying it did (docs/stores.md, the table).
 */
export const storeEventOutcomes = [
  'pending',
  'applied',
  'no_change',
  'stale',
  'unmapped',
  'unreadable',
  'failed',
] as const;
export const StoreEventOutcome = z.enum(storeEventOutcomes);
export type StoreEventOutcome = z.infer<typeof StoreEventOutcome>;

/** The outcomes an admin may apply again: a mapping or a fix may now let them through. */
export const retryableStoreEventOutcomes = ['failed', 'unmapped'] as const;

export const MailOutcome = z.object({
  outcome: z.enum(['sent', 'failed', 'skipped']),
  /** The moment mailed about (created, renewed, suspended, cancelled). */
  moment: z.string(),
  detail: z.string().nullable(),
  at: Timestamp,
});

export const StoreEventRecord = z.object({
  id: Id,
  connection_id: Id,
  /** The store's id of the event (Stripe `evt_…`, Paddle `event_id`, WooCommerce delivery id). */
  event_id: z.string(),
  /** The store's own name of the event (`invoice.paid`, `subscription_updated`, …). */
  type: z.string(),
  received_at: Timestamp,
  occurred_at: Timestamp.nullable(),
  order_id: z.string().nullable(),
  subscription_id: z.string().nullable(),
  external_ids: z.array(z.string()),
  outcome: StoreEventOutcome,
  /** Why: the reason of no_change, stale or unreadable, the error of a failure. */
  detail: z.string().nullable(),
  attempts: z.number().int().nonnegative(),
  /** The license the event made or changed; null when none. */
  license_key: z.string().nullable(),
  mail: z.array(MailOutcome),
  applied_at: Timestamp.nullable(),
});
export type StoreEventRecord = z.infer<typeof StoreEventRecord>;

export const ListStoreEventsRequest = z.strictObject({
  connection_id: Id.nullable().default(null),
  outcome: StoreEventOutcome.nullable().default(null),
  page: z.number().int().positive().max(MAX_PAGE).default(1),
  per_page: z.number().int().positive().max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
});
export type ListStoreEventsRequest = z.infer<typeof ListStoreEventsRequest>;

export const StoreEventPage = z.object({
  events: z.array(StoreEventRecord),
  page: z.number().int().positive(),
  per_page: z.number().int().positive(),
  total: z.number().int().nonnegative(),
});
export type StoreEventPage = z.infer<typeof StoreEventPage>;

export const StoreEventRef = z.strictObject({ id: Id });
