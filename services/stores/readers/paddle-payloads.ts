import { z } from 'zod';

/**
 * The fields of Paddle Billing's events the reader reads, as `@paddle/paddle-node-sdk`'s
 * notification types describe them (`IEventsResponse`, `ITransactionNotificationResponse`,
 * `ISubscriptionNotificationResponse`, `IAdjustmentNotificationResponse`). Every object is
 * loose: what is not read is not checked.
 */

/** RFC 3339 as Paddle writes it (`2026-11-28T10:18:49.621022Z`). */
const timestamp = z.iso.datetime({ offset: true }).transform((value) => new Date(value));

export const PaddleEnvelope = z.looseObject({
  event_id: z.string().min(1),
  event_type: z.string().min(1),
  occurred_at: timestamp,
  data: z.looseObject({}),
});

const period = z.looseObject({ starts_at: timestamp, ends_at: timestamp });

/**
 * Paddle's events name their customer by id only; an event that carries the customer (as the
 * API's `include=customer` answers do) gives its email and name too.
 */
const customer = z
  .looseObject({ email: z.string().nullish(), name: z.string().nullish() })
  .nullish();

export const PaddleTransaction = z.looseObject({
  id: z.string().min(1),
  origin: z.string(),
  subscription_id: z.string().min(1).nullish(),
  customer_id: z.string().min(1).nullish(),
  customer,
  billing_period: period.nullish(),
  items: z.array(
    z.looseObject({
      price_id: z.string().min(1).nullish(),
      price: z.looseObject({ id: z.string().min(1) }).nullish(),
    }),
  ),
});
export type PaddleTransaction = z.infer<typeof PaddleTransaction>;

export const PaddleSubscription = z.looseObject({
  id: z.string().min(1),
  status: z.string(),
  customer_id: z.string().min(1),
  customer,
  updated_at: timestamp,
  next_billed_at: timestamp.nullish(),
  current_billing_period: period.nullish(),
  scheduled_change: z.looseObject({ action: z.string() }).nullish(),
  items: z.array(
    z.looseObject({
      status: z.string(),
      created_at: timestamp,
      price: z.looseObject({ id: z.string().min(1) }).nullish(),
    }),
  ),
});
export type PaddleSubscription = z.infer<typeof PaddleSubscription>;

export const PaddleAdjustment = z.looseObject({
  id: z.string().min(1),
  action: z.string(),
  type: z.string().optional(),
  status: z.string(),
  transaction_id: z.string().min(1),
  subscription_id: z.string().min(1).nullish(),
  customer_id: z.string().min(1),
  created_at: timestamp,
});
export type PaddleAdjustment = z.infer<typeof PaddleAdjustment>;
