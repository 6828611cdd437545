import { z } from 'zod';

/**
 * The fields of Stripe's events the reader reads, as the `stripe` package's types describe them
 * for the API version it pins, with the shapes older versions send where they differ. Every
 * object is loose: what is not read is not checked.
 */

/** An id Stripe sends as a string, or as the object when the endpoint expands it. */
const expandable = z
  .union([z.string().min(1), z.looseObject({ id: z.string().min(1) })])
  .transform((value) => (typeof value === 'string' ? value : value.id));

const seconds = z.number().int().nonnegative();

export const StripeEnvelope = z.looseObject({
  id: z.string().min(1),
  type: z.string().min(1),
  created: seconds,
  data: z.looseObject({
    object: z.looseObject({}),
    previous_attributes: z.looseObject({}).optional(),
  }),
});

const price = z.looseObject({ id: z.string().min(1) });

/**
 * An invoice's line. Since API version 2025-03-31 its price is `pricing.price_details.price` and
 * its subscription `parent.subscription_item_details.subscription`; before, `price` (an object)
 * and `subscription`.
 */
const InvoiceLine = z.looseObject({
  amount: z.number().int(),
  period: z.looseObject({ start: seconds, end: seconds }),
  pricing: z
    .looseObject({ price_details: z.looseObject({ price: expandable }).nullish() })
    .nullish(),
  price: price.nullish(),
  subscription: expandable.nullish(),
  parent: z
    .looseObject({
      subscription_item_details: z
        .looseObject({ subscription: z.string().min(1).nullish() })
        .nullish(),
    })
    .nullish(),
});
export type StripeInvoiceLine = z.infer<typeof InvoiceLine>;

/**
 * An invoice. Its subscription is `parent.subscription_details.subscription` since 2025-03-31,
 * `subscription` before.
 */
export const StripeInvoice = z.looseObject({
  id: z.string().min(1),
  customer: expandable.nullish(),
  customer_email: z.string().nullish(),
  customer_name: z.string().nullish(),
  billing_reason: z.string().nullish(),
  subscription: expandable.nullish(),
  parent: z
    .looseObject({
      subscription_details: z.looseObject({ subscription: expandable }).nullish(),
    })
    .nullish(),
  lines: z.looseObject({ data: z.array(InvoiceLine) }),
});
export type StripeInvoice = z.infer<typeof StripeInvoice>;

export function invoiceSubscription(invoice: StripeInvoice): string | null {
  return invoice.parent?.subscription_details?.subscription ?? invoice.subscription ?? null;
}

export function lineSubscription(line: StripeInvoiceLine): string | null {
  return line.parent?.subscription_item_details?.subscription ?? line.subscription ?? null;
}

export const StripeCheckoutSession = z.looseObject({
  id: z.string().min(1),
  mode: z.string(),
  payment_status: z.string(),
  payment_intent: expandable.nullish(),
  invoice: expandable.nullish(),
  customer: expandable.nullish(),
  customer_email: z.string().nullish(),
  customer_details: z
    .looseObject({ email: z.string().nullish(), name: z.string().nullish() })
    .nullish(),
});

const SubscriptionItem = z.looseObject({
  price,
  /** Since 2025-03-31 each item has its period; before, the subscription had it. */
  current_period_end: seconds.optional(),
});

export const StripeSubscription = z.looseObject({
  id: z.string().min(1),
  customer: expandable,
  status: z.string(),
  cancel_at_period_end: z.boolean(),
  cancel_at: seconds.nullish(),
  current_period_end: seconds.optional(),
  items: z.looseObject({ data: z.array(SubscriptionItem) }),
});
export type StripeSubscription = z.infer<typeof StripeSubscription>;

/** What `customer.subscription.updated` says the subscription had before the change. */
export const StripeSubscriptionBefore = z.looseObject({
  cancel_at_period_end: z.boolean().optional(),
  cancel_at: seconds.nullish(),
  items: z.looseObject({ data: z.array(z.looseObject({ price })) }).optional(),
});

/** A charge; `invoice` is gone from it since 2025-03-31. */
export const StripeCharge = z.looseObject({
  id: z.string().min(1),
  created: seconds,
  refunded: z.boolean(),
  customer: expandable.nullish(),
  payment_intent: expandable.nullish(),
  invoice: expandable.nullish(),
  receipt_email: z.string().nullish(),
  billing_details: z
    .looseObject({ email: z.string().nullish(), name: z.string().nullish() })
    .nullish(),
});

export const StripeDispute = z.looseObject({
  id: z.string().min(1),
  charge: expandable,
  payment_intent: expandable.nullish(),
});
