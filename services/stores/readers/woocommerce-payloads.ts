import { z } from 'zod';

/**
 * The parts of WooCommerce's webhook bodies the reader reads, and nothing else: every object is
 * loose, so the fields WooCommerce and its extensions add never refuse an event. A webhook's body
 * is the resource as the REST API v3 answers it (woocommerce.github.io/woocommerce-rest-api-docs,
 * "Orders"; WooCommerce Subscriptions' "Subscriptions", which extends the order's shape). The
 * webhook's API version is "WP REST API Integration v3": its subscriptions are
 * `/wc/v3/subscriptions/<id>` (WooCommerce Subscriptions' `WCS_Webhooks::create_payload`), with the
 * `*_date_gmt` fields read here; older versions name the dates otherwise.
 */

/** Ids are integers; 0 means none (a guest's `customer_id`, a product's `variation_id`). */
const WooId = z.number().int().nonnegative();

/**
 * The `*_gmt` dates are UTC written without a zone (`2026-05-01T10:00:00`), so they are read as
 * UTC. WooCommerce Subscriptions writes an unset date as `""`; WooCommerce as null.
 */
const GmtDate = z
  .union([z.iso.datetime({ local: true }), z.literal(''), z.null()])
  .transform((text) => (text ? new Date(`${text}Z`) : null));

/** Money as WooCommerce writes it: a decimal string, negative for refunds (`"-10.00"`). */
const Amount = z
  .string()
  .regex(/^-?\d+(?:\.\d+)?$/)
  .transform(Number);

const Billing = z.looseObject({
  first_name: z.string().nullish(),
  last_name: z.string().nullish(),
  email: z.string().nullish(),
});

const LineItem = z.looseObject({ product_id: WooId, variation_id: WooId.nullish() });

/** What orders and subscriptions share. */
const ResourceFields = {
  id: WooId,
  parent_id: WooId.nullish(),
  status: z.string().min(1),
  customer_id: WooId.nullish(),
  billing: Billing.nullish(),
  line_items: z.array(LineItem),
  date_created_gmt: GmtDate.optional(),
  date_modified_gmt: GmtDate.optional(),
};

/** `order.created`, `order.updated`: an order. */
export const WooOrder = z.looseObject({
  ...ResourceFields,
  total: Amount,
  refunds: z.array(z.looseObject({ total: Amount })).nullish(),
  meta_data: z.array(z.looseObject({ key: z.string(), value: z.unknown() })).nullish(),
});
export type WooOrder = z.infer<typeof WooOrder>;

/** `subscription.created`, `subscription.updated`, `subscription.switched`: a subscription. */
export const WooSubscription = z.looseObject({
  ...ResourceFields,
  next_payment_date_gmt: GmtDate.optional(),
  end_date_gmt: GmtDate.optional(),
  /** The subscription this one resubscribes; `""` when none. */
  resubscribed_from: z.union([z.string(), WooId]).nullish(),
});
export type WooSubscription = z.infer<typeof WooSubscription>;

/**
 * A `*.deleted` topic's body is the id alone; other topics (`product.*`, `customer.*`,
 * `action.*`) send what they send. Read for the id and the date when there are any.
 */
export const WooAnyResource = z.looseObject({
  id: WooId.optional(),
  date_created_gmt: GmtDate.optional(),
  date_modified_gmt: GmtDate.optional(),
});
export type WooAnyResource = z.infer<typeof WooAnyResource>;
