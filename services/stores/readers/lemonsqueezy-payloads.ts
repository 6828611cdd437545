import { z } from 'zod';

/**
 * The parts of Lemon Squeezy's webhook bodies the reader reads, and nothing else: every object is
 * loose, so the fields Lemon Squeezy adds or sends that the reader ignores never refuse an event.
 * Shapes as documented at docs.lemonsqueezy.com/api (the order, subscription and subscription
 * invoice objects) and docs.lemonsqueezy.com/help/webhooks (`meta.event_name`, `data`).
 */

/** Ids arrive as numbers in `attributes` and as strings in `data.id`; mappings key on strings. */
const StoreId = z
  .union([z.number().int().nonnegative(), z.string().regex(/^\d{1,20}$/)])
  .transform(String);

/** ISO 8601 in UTC, with the microseconds Lemon Squeezy writes (`…T09:45:53.000000Z`). */
const Instant = z.iso.datetime({ offset: true }).transform((text) => new Date(text));

const Cents = z.number().int().nonnegative();

/** Who bought: on orders, subscriptions and invoices alike. */
const CustomerFields = {
  customer_id: StoreId.nullish(),
  user_email: z.string().nullish(),
  user_name: z.string().nullish(),
};

export const LemonSqueezyEnvelope = z.looseObject({
  meta: z.looseObject({ event_name: z.string().min(1) }),
  data: z.looseObject({
    type: z.string().min(1),
    id: StoreId,
    attributes: z.looseObject({}),
  }),
});

/** `data.type` `orders`: `order_created`, `order_refunded`. */
export const LemonSqueezyOrder = z.looseObject({
  ...CustomerFields,
  status: z.string(),
  total: Cents,
  refunded_amount: Cents.nullish(),
  first_order_item: z.looseObject({ variant_id: StoreId }),
  created_at: Instant,
  updated_at: Instant.nullish(),
});
export type LemonSqueezyOrder = z.infer<typeof LemonSqueezyOrder>;

/** `data.type` `subscriptions`: every `subscription_*` event but the payment ones. */
export const LemonSqueezySubscription = z.looseObject({
  ...CustomerFields,
  order_id: StoreId,
  variant_id: StoreId,
  status: z.string(),
  cancelled: z.boolean(),
  renews_at: Instant.nullish(),
  ends_at: Instant.nullish(),
  created_at: Instant,
  updated_at: Instant.nullish(),
});
export type LemonSqueezySubscription = z.infer<typeof LemonSqueezySubscription>;

/** `data.type` `subscription-invoices`: `subscription_payment_*`. */
export const LemonSqueezyInvoice = z.looseObject({
  ...CustomerFields,
  subscription_id: StoreId,
  billing_reason: z.string(),
  status: z.string(),
  total: Cents,
  refunded_amount: Cents.nullish(),
  created_at: Instant,
  updated_at: Instant.nullish(),
});
export type LemonSqueezyInvoice = z.infer<typeof LemonSqueezyInvoice>;

/** Any other object (license keys, and what Lemon Squeezy adds): when, and for whom. */
export const LemonSqueezyObject = z.looseObject({
  ...CustomerFields,
  created_at: Instant.nullish(),
  updated_at: Instant.nullish(),
});
